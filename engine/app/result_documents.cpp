#include "engine/app/result_documents.h"

#include "engine/workflow/input_types.h"

namespace engine::app {

Value workflow_document(const workflow::Executor& e, const std::string& name) {
  Value properties = Value::object();
  Value required = Value::array();
  for (const workflow::Input& input : e.inputs()) {
    Value p = Value::object();
    if (const char* type = workflow::schema_type(input)) p["type"] = type;
    if (!input.description.empty()) p["description"] = input.description;
    if (input.default_value) p["default"] = *input.default_value;
    else required.push_back(input.name);
    properties[input.name] = std::move(p);
  }
  Value outputs = Value::object();
  for (const workflow::OutputTemplate& o : e.outputs()) {
    Value p = Value::object();
    if (!o.description.empty()) p["description"] = o.description;
    outputs[o.name] = std::move(p);
  }
  Value output_properties{{"output", {{"description", "the answer: text, or the agent's structured answer"}}},
                          {"outputs", {{"type", "object"}, {"properties", std::move(outputs)}}}};
  Value doc{{"name", name},
            {"description", e.description()},
            {"input_schema", {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}}},
            {"output_schema", {{"type", "object"}, {"properties", std::move(output_properties)}}}};
  doc["chat_input"] = e.chat_input().empty() ? Value(nullptr) : Value(e.chat_input());
  return doc;
}

Value run_document(const agent::RunResult& result) {
  Value doc{{"run_id", result.run_id},
            {"output", result.output},
            {"outputs", result.outputs},
            {"usage", result.usage_json()},
            {"stopped_reason", name_of(result.stopped_reason)},
            {"elapsed_ms", result.elapsed_ms}};
  if (result.error) doc["error"] = {{"message", result.error->to_error().formatted()}, {"code", result.error->kind}};
  return doc;
}

}  // namespace engine::app
