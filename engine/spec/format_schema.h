#pragma once
// The JSON Schema of the workflow format (schema/workflow.schema.json), built into the engine so that
// `engine schema` prints it wherever the engine runs.
#include <string_view>

namespace engine::spec {

std::string_view workflow_format_schema();

}  // namespace engine::spec
