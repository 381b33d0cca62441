#include "engine/schema/value_types.h"

#include <cmath>

#include "engine/core/json_parse.h"

namespace engine::schema {

const char* value_type(const Value& v) {
  switch (v.type()) {
    case Value::value_t::number_integer:
    case Value::value_t::number_unsigned: return "integer";
    case Value::value_t::number_float: {
      double d = v.get<double>();
      return std::isfinite(d) && d == std::trunc(d) ? "integer" : "number";
    }
    case Value::value_t::string: return "string";
    case Value::value_t::boolean: return "boolean";
    case Value::value_t::array: return "array";
    case Value::value_t::object: return "object";
    default: return "null";
  }
}

bool has_value_type(const Value& v, std::string_view type) {
  std::string_view is = value_type(v);
  return is == type || (type == "number" && is == "integer");
}

std::optional<Value> read_as_type(std::string_view text, std::string_view type) {
  if (type == "string") return std::nullopt;
  Value v = parse_json(text);
  if (v.is_discarded() || !has_value_type(v, type)) return std::nullopt;
  return v;
}

std::string with_article(std::string_view type) {
  bool vowel = !type.empty() && std::string_view("aeiou").find(type[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(type);
}

}  // namespace engine::schema
