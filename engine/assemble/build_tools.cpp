#include "engine/assemble/build_tools.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/assemble/build_executor.h"
#include "engine/assemble/build_grants.h"
#include "engine/assemble/spec_errors.h"
#include "engine/core/text.h"
#include "engine/parse/schema_patterns.h"
#include "engine/tools/builtin_tools.h"
#include "engine/tools/lua/lua_tool.h"
#include "engine/tools/mcp/mcp_tool.h"
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
  BuildOptions sub = options;
  sub.found = nullptr;  // its first problem is this tool's
  return std::make_shared<workflow::WorkflowTool>(build_executor(w, sub), name, t.description, w.description);
}

// A folder as a file:// URI, as MCP's roots are given: absolute, with the bytes a URI cannot hold escaped.
std::string file_uri(const std::filesystem::path& folder) {
  std::string path = std::filesystem::absolute(folder).lexically_normal().string();
  std::string uri = "file://";
  const char* hex = "0123456789ABCDEF";
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::strchr("/-._~", c)) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  if (uri.size() > 8 && uri.back() == '/') uri.pop_back();
  return uri;
}

// The tool names the workflow itself uses (agents' tools and return_direct, tool steps): what a server that is
// not started must still answer to.
std::vector<std::string> referenced_tools(const spec::WorkflowSpec& s) {
  std::vector<std::string> names;
  auto add = [&](const std::vector<spec::Located<std::string>>& refs) {
    for (const auto& r : refs)
      if (std::find(names.begin(), names.end(), r.value) == names.end()) names.push_back(r.value);
  };
  add(s.agent.tools);
  add(s.agent.return_direct);
  spec::for_each_step(s.steps, [&](const spec::StepSpec& st) {
    if (st.kind.value == StepKind::Tool) add({st.tool});
    if (st.agent) {
      add(st.agent->tools);
      add(st.agent->return_direct);
    }
  });
  return names;
}

tools::mcp::McpServerConfig server_config(const spec::ToolSpec& t) {
  const spec::McpSpec& m = *t.mcp;
  tools::mcp::McpServerConfig c;
  c.name = t.name.value;
  if (!m.command.value.empty()) {
    c.process = net::ProcessSpec{m.command.value, m.args, m.env, m.cwd};
  } else {
    c.url = m.url.value;
    for (const auto& [name, value] : m.headers) c.headers.push_back(name + ": " + value);
  }
  for (const auto& r : m.roots) c.root_uris.push_back(file_uri(r));
  c.timeout = std::chrono::milliseconds(static_cast<int64_t>(m.timeout_s * 1000));
  return c;
}

// An MCP server's tools: listed by the server, started now; or, when servers are not to be started, the tools the
// workflow names (its allow-list, and for the first server without one, the names it uses that no other tool has).
std::vector<std::shared_ptr<const tools::Tool>> mcp_tools(const spec::ToolSpec& t, const spec::WorkflowSpec& s,
                                                          const BuildOptions& options, std::vector<std::string>& warnings,
                                                          std::shared_ptr<const tools::ToolSource>& source) {
  const spec::McpSpec& m = *t.mcp;
  auto server = std::make_shared<const tools::mcp::McpServer>(server_config(t), options.io);
  tools::mcp::ToolsetOptions o;
  for (const auto& a : m.allow) o.allow.push_back(a.value);
  o.prefix = m.prefix;
  o.schema_options = schema::SchemaOptions{parse::schema_patterns()};
  if (!options.connect_mcp) {
    std::vector<std::string> names = o.allow;
    if (names.empty() && &t == &*std::find_if(s.tools.begin(), s.tools.end(), [](const auto& e) {
          return e.mcp && e.mcp->allow.empty();
        })) {
      for (const auto& r : referenced_tools(s)) {
        bool declared = std::any_of(s.tools.begin(), s.tools.end(), [&](const spec::ToolSpec& e) {
          if (e.mcp) return std::any_of(e.mcp->allow.begin(), e.mcp->allow.end(),
                                        [&](const auto& a) { return e.mcp->prefix + a.value == r; });
          return e.name.value == r || (e.name.value.empty() && !e.lua.value.empty());
        });
        if (!declared && r.rfind(m.prefix, 0) == 0) names.push_back(r.substr(m.prefix.size()));
      }
    }
    std::vector<std::shared_ptr<const tools::Tool>> unlisted;
    for (const auto& name : names) {
      Value any_object{{"type", "object"}};
      auto input = schema::Schema::compile(any_object, o.schema_options);
      unlisted.push_back(std::make_shared<tools::mcp::McpTool>(
          server, tools::mcp::ListedTool{name, "", "", std::move(any_object), nullptr}, m.prefix + name, std::move(input),
          std::nullopt));
    }
    return unlisted;
  }
  std::shared_ptr<const tools::mcp::McpToolset> set;
  try {
    set = std::make_shared<const tools::mcp::McpToolset>(server, o);
  } catch (const tools::mcp::MissingToolError& e) {  // pointed at in the entry's tools: list
    SourceLoc at = m.loc;
    for (const auto& a : m.allow)
      if (a.value == e.tool) at = a.loc;
    throw Error(e.kind(), "tools: " + e.message(), at, quoted_line(s, at));
  } catch (const Error& e) {  // the server's errors name it (McpServer)
    throw Error(e.kind(), "tools: " + e.message(), m.loc, quoted_line(s, m.loc));
  }
  if (!set->warning().empty()) warnings.push_back(set->warning());
  source = set;
  return *set->current(nullptr);
}

std::shared_ptr<const tools::Tool> load_tool(const spec::ToolSpec& t, const spec::WorkflowSpec& s,
                                             const BuildOptions& options) {
  if (t.workflow_spec) return workflow_tool(t, options);
  schema::SchemaOptions schema_options{parse::schema_patterns()};
  if (!t.builtin.value.empty()) {
    std::shared_ptr<const tools::Tool> tool;
    std::string at = "tools[" + std::to_string(&t - s.tools.data()) + "]";
    tools::GrantedToolOptions granted;
    if (!t.allow.empty()) granted.capabilities = build_capabilities(t.allow, s, at, options.io);
    if (t.limits.timeout_given) granted.timeout = std::chrono::milliseconds(t.limits.timeout_ms);
    if (t.builtin.value == "search_docs") granted.index_file = search_docs_index_file(t, s).string();
    try {
      tool = tools::make_builtin_tool(t.builtin.value, t.name.value, t.description, t.parameters, schema_options, granted);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::SpecMissingGrant || e.kind() == ErrorKind::SpecConflict)
        throw Error(e.kind(), at + ": " + e.message(), t.builtin.loc, quoted_line(s, t.builtin.loc));
      throw parameters_error(e, t, s);
    }
    if (!tool)
      throw Error(ErrorKind::SpecUnknownBuiltin,
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
  cfg.limits = granted_limits(lua_limits(t.limits), t.limits, t.allow);
  std::string at = "tools[" + std::to_string(&t - s.tools.data()) + "]";
  if (!t.allow.empty()) cfg.capabilities = build_capabilities(t.allow, s, at, options.io);
  try {
    return tools::lua::LuaTool::load(cfg);
  } catch (const Error& e) {
    if (e.loc().line > 0) throw;  // a syntax error already points into the script
    if (e.kind() == ErrorKind::SchemaInvalid && !t.parameters.is_null()) throw parameters_error(e, t, s);
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

tools::ToolRegistry build_tools(const spec::WorkflowSpec& s, const BuildOptions& options,
                               std::vector<std::string>* warnings) {
  tools::ToolRegistry registry;
  std::vector<std::string> ignored;
  for (size_t i = 0; i < s.tools.size(); ++i) {
    const spec::ToolSpec& t = s.tools[i];
    std::vector<std::shared_ptr<const tools::Tool>> given;
    std::shared_ptr<const tools::ToolSource> source;
    bool built = noted(options.found, [&] {
      if (t.mcp) given = mcp_tools(t, s, options, warnings ? *warnings : ignored, source);
      else given.push_back(load_tool(t, s, options));
    });
    if (!built) {  // a validation's: the agents and steps that name it are checked without it
      options.found->left_out(Diagnostics::Entry::tool, t.name.value);
      continue;
    }
    if (source) registry.add_source(i, std::move(source));
    for (auto& tool : given)
      noted(options.found, [&] {
        if (registry.find(tool->name()))
          throw Error(ErrorKind::SpecDuplicateKey,
                      "two tools are named '" + tool->name() + "'" +
                          (t.mcp ? " (an MCP server's tool among them: a prefix: keeps them apart)" : ""),
                      t.loc, quoted_line(s, t.loc));
        registry.add(std::move(tool), i);
      });
  }
  return registry;
}

spec::AgentSpec named_tools_only(const spec::AgentSpec& a, const tools::ToolRegistry& registry, const Diagnostics* found) {
  spec::AgentSpec out = a;
  if (!found) return out;
  auto known = [&](std::vector<spec::Located<std::string>>& refs) {
    std::erase_if(refs, [&](const auto& r) {
      return !registry.find(r.value) && found->was_left_out(Diagnostics::Entry::tool, r.value);
    });
  };
  known(out.tools);
  known(out.return_direct);
  return out;
}

std::optional<Effect> declared_effect(const spec::ToolSpec& entry) {
  if (entry.effect.value.empty()) return std::nullopt;
  return effect_named(entry.effect.value);
}

std::vector<agent::AgentTool> agent_tools(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry) {
  auto names = registry.names();
  auto require = [&](const spec::Located<std::string>& ref, const std::string& path) {
    if (!registry.find(ref.value))
      throw Error(ErrorKind::SpecUnknownTool, "unknown tool '" + ref.value + "' in " + path + did_you_mean(ref.value, names),
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
    const spec::ToolSpec& entry = s.tools[registry.origin(i)];
    out.push_back(agent::AgentTool{tool, named(s.agent.return_direct), entry.on_error.value == "fail",
                                   declared_effect(entry), entry.approve});
  }
  return out;
}

std::vector<agent::AgentTools::Changing> changing_tools(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry) {
  std::vector<agent::AgentTools::Changing> out;
  auto names = [](const std::vector<spec::Located<std::string>>& list) {
    std::vector<std::string> n;
    for (const auto& r : list) n.push_back(r.value);
    return n;
  };
  for (size_t i = 0; i < s.tools.size(); ++i)
    if (auto source = registry.source(i))
      out.push_back(agent::AgentTools::Changing{std::move(source), s.agent.tools_given ? names(s.agent.tools)
                                                                                       : std::vector<std::string>{},
                                                names(s.agent.return_direct), s.tools[i].on_error.value == "fail",
                                                declared_effect(s.tools[i]), s.tools[i].approve});
  return out;
}

}  // namespace engine::assemble
