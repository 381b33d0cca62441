#pragma once
// One reader per section of the workflow format, each file holding the keys its mappings take (format_keys.h) and
// reading them: a new key touches its section's file and schema/workflow.schema.json
// (tests/spec/format_schema_test.cpp holds the two together).
// Internal to spec/.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "engine/spec/section_reader.h"
#include "engine/spec/workflow_spec.h"

namespace engine::spec {

// inputs: and outputs: (read_inputs.cpp)
std::vector<InputSpec> read_inputs(SectionReader& in, const YAML::Node& n);
std::vector<OutputSpec> read_outputs(SectionReader& in, const YAML::Node& n);

// An llm block: the workflow's (`at` is "llm") or a step's own ("steps.NAME.llm") (read_llm.cpp).
LlmSpec read_llm(SectionReader& in, const YAML::Node& n, const std::string& at);

// tools: (read_tools.cpp)
std::vector<ToolSpec> read_tools(SectionReader& in, const YAML::Node& n);

// The agent block at `at` (agent, or a step's steps.NAME.agent), every message naming that key path
// (read_agent.cpp).
AgentSpec read_agent(SectionReader& in, const YAML::Node& n, const std::string& at);

// The steps of the workflow (at `steps`), or of a loop's body (at `steps.NAME.steps`) (read_steps.cpp).
std::vector<StepSpec> read_steps(SectionReader& in, const YAML::Node& n, const std::string& at);

}  // namespace engine::spec
