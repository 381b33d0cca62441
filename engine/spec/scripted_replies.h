#pragma once
// The scripted provider's replies as a file writes them, for a workflow's llm block and a test's model alike:
// each the model's text, or {content, tool_calls: [{name, arguments}]}. Internal to spec/ (it reads yaml-cpp nodes).
#include <string>
#include <vector>

#include "engine/spec/workflow_spec.h"
#include "engine/spec/yaml_reader.h"

namespace engine::spec {

// `path` names the list in errors ("llm.scripted.replies", "tests.adds.replies"). A single text is a list of one.
std::vector<ScriptedReplySpec> read_scripted_replies(const YamlReader& r, const YAML::Node& n, const std::string& path);

// [{name, arguments}]: arguments a mapping (sent as JSON) or JSON text; in a rule (`templated`), a template of JSON
// text.
std::vector<ScriptedToolCallSpec> read_scripted_tool_calls(const YamlReader& r, const YAML::Node& n,
                                                           const std::string& path, bool templated);

}  // namespace engine::spec
