#pragma once
// The JSON Schemas of the workflow format, of test files and of evaluation files (schema/*.schema.json), built into
// the engine so that `engine schema` prints them wherever the engine runs. The other two refer to the workflow's
// (`workflow.schema.json#/definitions/...`), so they are kept beside it.
#include <string_view>

namespace engine::spec {

std::string_view workflow_format_schema();
std::string_view test_file_schema();
std::string_view eval_file_schema();

}  // namespace engine::spec
