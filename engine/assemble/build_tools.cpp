#include "engine/assemble/build_tools.h"

#include <algorithm>

#include "engine/assemble/build_executor.h"
#include "engine/assemble/spec_errors.h"
#include "engine/core/text.h"
#include "engine/parse/schema_patterns.h"
#include "engine/tools/builtin_tools.h"
#include "engine/tools/lua/lua_tool.h"
#include "engine/workflow/workflow_tool.h"

namespace engine::assemble {
namespace {

// A schema checked by spec/ can still fail here: its patterns are compiled now.
Error parameters_error(const Error& e, const spec::ToolSpec& t, const spec::WorkflowSpec& s) {
  return Error(e.kind(), "tools: parameters of '" + t.name.value + "': " + e.message(), t.parameters_loc,
               quoted_line(s, t.parameters_loc));
}

// A workflow file as a tool: named by the tool entry, else by the workflow's name, else by its file's stem.
std::shared_ptr<const tools::Tool> workflow_tool(const spec::ToolSpec& t, const BuildOptions& options) {
  const spec::WorkflowSpec& w = *t.workflow_spec;
  std::string name = !t.name.value.empty() ? t.name.value
                     : !w.name.empty()     ? w.name
                                           : std::filesystem::path(t.workflow.value).stem().string();
  return std::make_shared<workflow::WorkflowTool>(build_executor(w, options), name, t.description, w.description);
}

std::shared_ptr<const tools::Tool> load_tool(const spec::ToolSpec& t, const spec::WorkflowSpec& s,
                                             const BuildOptions& options) {
  if (t.workflow_spec) return workflow_tool(t, options);
  schema::SchemaOptions schema_options{parse::schema_patterns()};
  if (!t.builtin.value.empty()) {
    std::shared_ptr<const tools::Tool> tool;
    try {
      tool = tools::make_builtin_tool(t.builtin.value, t.name.value, t.description, t.parameters, schema_options);
    } catch (const Error& e) {
      throw parameters_error(e, t, s);
    }
    if (!tool)
      throw Error("spec.unknown_builtin",
                  "unknown builtin tool '" + t.builtin.value + "'" +
                      did_you_mean(t.builtin.value, tools::builtin_tool_names()) + " (available: " +
                      join(tools::builtin_tool_names(), ", ") + ")",
                  t.builtin.loc, quoted_line(s, t.builtin.loc));
    return tool;
  }
  tools::lua::LuaToolConfig cfg;
  cfg.file = t.lua_file;
  cfg.display_path = script_display_path(s, t.lua.value);
  cfg.name = t.name.value;
  cfg.description = t.description;
  cfg.parameters = t.parameters;
  cfg.schema_options = schema_options;
  cfg.limits = lua_limits(t.limits);
  try {
    return tools::lua::LuaTool::load(cfg);
  } catch (const Error& e) {
    if (e.loc().line > 0) throw;  // a syntax error already points into the script
    if (e.kind() == "schema.invalid" && !t.parameters.is_null()) throw parameters_error(e, t, s);
    throw Error(e.kind(), "tool '" + (t.name.value.empty() ? t.lua.value : t.name.value) + "': " + e.message(),
                t.lua.loc, quoted_line(s, t.lua.loc));
  }
}

}  // namespace

tools::lua::LuaLimits lua_limits(const spec::LuaLimitsSpec& l) {
  tools::lua::LuaLimits limits;
  limits.instructions = static_cast<uint64_t>(l.instructions);
  limits.memory_bytes = static_cast<size_t>(l.memory_mb) << 20;
  limits.timeout = std::chrono::milliseconds(l.timeout_ms);
  return limits;
}

std::string script_display_path(const spec::WorkflowSpec& s, const std::string& written) {
  return (std::filesystem::path(s.display_path).parent_path() / written).lexically_normal().string();
}

tools::ToolRegistry build_tools(const spec::WorkflowSpec& s, const BuildOptions& options) {
  tools::ToolRegistry registry;
  for (const auto& t : s.tools) {
    auto tool = load_tool(t, s, options);
    if (registry.find(tool->name()))
      throw Error("spec.duplicate_key", "two tools are named '" + tool->name() + "'", t.loc, quoted_line(s, t.loc));
    registry.add(std::move(tool));
  }
  return registry;
}

std::vector<agent::AgentTool> agent_tools(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry) {
  auto names = registry.names();
  auto require = [&](const spec::Located<std::string>& ref, const std::string& path) {
    if (!registry.find(ref.value))
      throw Error("spec.unknown_tool", "unknown tool '" + ref.value + "' in " + path + did_you_mean(ref.value, names),
                  ref.loc, quoted_line(s, ref.loc));
  };
  for (const auto& r : s.agent.tools) require(r, s.agent.path + ".tools");
  for (const auto& r : s.agent.return_direct) require(r, s.agent.path + ".return_direct");

  std::vector<agent::AgentTool> out;
  for (size_t i = 0; i < registry.all().size(); ++i) {
    const auto& tool = registry.all()[i];
    auto named = [&](const std::vector<spec::Located<std::string>>& list) {
      return std::any_of(list.begin(), list.end(), [&](const auto& r) { return r.value == tool->name(); });
    };
    if (s.agent.tools_given && !named(s.agent.tools)) continue;
    out.push_back(agent::AgentTool{tool, named(s.agent.return_direct), s.tools[i].on_error.value == "fail"});
  }
  return out;
}

}  // namespace engine::assemble
