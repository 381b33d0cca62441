#include "engine/workflow/input_types.h"

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/schema/schema_check.h"
#include "engine/schema/value_types.h"

namespace engine::workflow {

const char* schema_type(const Input& input) {
  if (!input.type.empty()) return input.type.c_str();
  if (!input.default_value) return "string";
  const char* type = schema::value_type(*input.default_value);
  if (std::string_view(type) == "null") return nullptr;
  // A default of 2.0 says "number" however JSON Schema counts it: the author wrote a fraction's form.
  if (input.default_value->is_number_float()) return "number";
  return type;
}

Value conform_input(const Input& input, Value given) {
  if (input.type.empty() || schema::has_value_type(given, input.type)) return given;
  if (given.is_string())
    if (std::optional<Value> read = schema::read_as_type(given.get_ref<const std::string&>(), input.type))
      return std::move(*read);
  std::string shown = given.is_string() ? quote_excerpt(given.get_ref<const std::string&>(), 60)
                                        : printable_excerpt(to_json_text(given), 60);
  throw Error(ErrorKind::InputWrongType, "input '" + input.name + "' must be " + schema::with_article(input.type) +
                                      ", got " + schema::json_type_name(given) + ": " + shown);
}

}  // namespace engine::workflow
