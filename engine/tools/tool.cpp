#include "engine/tools/tool.h"

#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"

namespace engine::tools {
std::string observation_text(const Value& output) {
  if (output.is_string()) return output.get<std::string>();
  return to_json_text(output);
}

Tool::Tool(std::string name, std::string description, Value parameters, const schema::SchemaOptions& schema_options)
    : name_(std::move(name)), description_(std::move(description)), parameters_(std::move(parameters)) {
  if (!parameters_.is_null()) schema_ = schema::Schema::compile(parameters_, schema_options);
}

Tool::Tool(std::string name, std::string description, Value parameters, std::optional<schema::Schema> compiled)
    : name_(std::move(name)),
      description_(std::move(description)),
      parameters_(std::move(parameters)),
      schema_(std::move(compiled)) {}

std::string prepare_arguments(const Tool& tool, Value& input) {
  if (tool.parameters().is_null()) return "";
  std::string prefix = "tool '" + tool.name() + "' was not run: ";
  if (input.is_string()) {
    JsonError why;
    Value parsed = parse_json(input.get<std::string>(), &why);
    if (parsed.is_discarded())
      return prefix + "its input must be a JSON object of its arguments (" + why.message + ")";
    input = std::move(parsed);
  }
  if (!input.is_object()) return prefix + "its input must be a JSON object of its arguments";
  const schema::Schema* schema = tool.parameters_schema();
  if (!schema) return "";
  auto violations = schema->validate(input);
  if (violations.empty()) return "";
  return prefix + "its arguments do not match its parameters: " + schema::describe(violations);
}

std::string ToolResult::text() const { return observation_text(output); }

}  // namespace engine::tools
