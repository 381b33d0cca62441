#pragma once
// Loads the workflow's tools (Lua scripts and built-ins) and works out which ones the agent may call.
#include <vector>

#include "engine/agent/run_core.h"
#include "engine/spec/workflow_spec.h"
#include "engine/tools/tool_registry.h"

namespace engine::assemble {

tools::ToolRegistry build_tools(const spec::WorkflowSpec& spec);
std::vector<agent::AgentTool> agent_tools(const spec::WorkflowSpec& spec, const tools::ToolRegistry& registry);

}  // namespace engine::assemble
