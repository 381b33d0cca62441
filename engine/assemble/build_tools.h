#pragma once
// Loads the workflow's tools (Lua scripts and built-ins) and works out which ones the agent may call.
#include <string>
#include <vector>

#include "engine/agent/run_core.h"
#include "engine/agent/tool_set.h"
#include "engine/assemble/build_llm.h"
#include "engine/spec/workflow_spec.h"
#include "engine/tools/lua/lua_sandbox.h"
#include "engine/tools/tool_registry.h"

namespace engine::assemble {

// Sub-workflows used as tools are built with `options` (the shared cap on model calls); MCP servers are started to
// list their tools unless options.connect_mcp is false. What the build could not check goes to `warnings`.
tools::ToolRegistry build_tools(const spec::WorkflowSpec& spec, const BuildOptions& options = {},
                               std::vector<std::string>* warnings = nullptr);
// The agent block without the tools a validation left out for their own problems (`found`; none: `a` as it is).
spec::AgentSpec named_tools_only(const spec::AgentSpec& a, const tools::ToolRegistry& registry, const Diagnostics* found);
// The effect a tools entry declares (`effect:`), or none: its tools' own.
std::optional<Effect> declared_effect(const spec::ToolSpec& entry);

std::vector<agent::AgentTool> agent_tools(const spec::WorkflowSpec& spec, const tools::ToolRegistry& registry);
// The sources among them whose lists can change (MCP servers), as the agent takes their tools.
std::vector<agent::AgentTools::Changing> changing_tools(const spec::WorkflowSpec& spec,
                                                        const tools::ToolRegistry& registry);

tools::lua::LuaLimits lua_limits(const spec::LuaLimitsSpec& limits);
// A script's path as messages show it: as written, from the workflow's own display path.
std::string script_display_path(const spec::WorkflowSpec& spec, const std::string& written);

}  // namespace engine::assemble
