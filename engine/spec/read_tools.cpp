// tools: Lua scripts, built-ins, workflows and MCP servers, each entry read on its own.
#include <algorithm>

#include "engine/core/journal.h"
#include "engine/core/secret_set.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/section_readers.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
const KeyList kTool = {"name",     "description", "lua",   "builtin", "parameters", "limits", "on_error",
                       "workflow", "mcp",         "tools", "prefix",  "timeout", "allow",
                       "index", "effect", "approve"};
const KeyList kMcp = {"command", "args", "env", "cwd", "url", "headers", "roots"};
const KeyList kApprove = {"deny", "ask"};

}  // namespace keys

namespace {

// What messages call a server: the package or script it runs (`npx -y @scope/server-x` is server-x), the
// program otherwise, or the host of its URL.
std::string server_name(const McpSpec& m) {
  if (!m.url.value.empty()) {
    std::string rest = m.url.value.substr(m.url.value.find("//") + 2);
    return rest.substr(0, rest.find('/'));
  }
  auto base = [](const std::string& p) { return std::filesystem::path(p).filename().string(); };
  std::string program = base(m.command.value);
  static const char* const kLaunchers[] = {"npx", "node", "uvx", "uv", "python", "python3", "bunx", "deno", "docker", "sh", "bash"};
  if (std::find(std::begin(kLaunchers), std::end(kLaunchers), program) == std::end(kLaunchers)) return program;
  for (const auto& a : m.args)
    if (!a.empty() && a[0] != '-' && a != "run") {
      // A script is named for its package: .../server-everything/dist/index.js is server-everything.
      std::filesystem::path p(a);
      std::string name = p.has_extension() ? p.stem().string() : p.filename().string();
      static const char* const kGeneric[] = {"index", "main", "server", "cli", "dist", "build", "lib", "src", "bin"};
      for (auto up = p.parent_path(); std::find(std::begin(kGeneric), std::end(kGeneric), name) != std::end(kGeneric) &&
                                      !up.filename().empty();
           up = up.parent_path())
        name = up.filename().string();
      if (auto at = name.find('@', 1); at != std::string::npos) name.resize(at);  // a version: pkg@1.2
      return name;
    }
  return program;
}

// An MCP server's entry: `mcp:` says how to reach it; `tools`, `prefix` and `timeout` beside it which of its
// tools to use and how.
McpSpec mcp(SectionReader& in, const YAML::Node& t, const std::string& path) {
  YamlReader& r = in.r;
  const YAML::Node& m = t["mcp"];
  std::string at = path + ".mcp";
  r.expect_map(m, at, keys::kMcp);
  McpSpec s;
  s.loc = r.loc(m);
  if (m["command"] && m["url"]) r.fail(ErrorKind::SpecConflict, at + " has both command (stdio) and url (HTTP); give one", m);
  if (!m["command"] && !m["url"])
    r.fail(ErrorKind::SpecMissingKey, at + " needs command: (a server over stdio) or url: (over Streamable HTTP)", m);
  auto pairs = [&](const YAML::Node& n, const std::string& key_path) {
    if (!n.IsMap()) r.fail(ErrorKind::SpecWrongType, key_path + " must be a mapping of names to text", n);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& kv : n) {
      std::string name = kv.first.as<std::string>();
      out.emplace_back(name, r.str(kv.second, key_path + "." + name));
      // Added before anything below can fail: an error that quotes the value is masked as it is printed.
      if (read_from_environment(kv.second) || is_credential_header(name)) in.options.secrets->add(out.back().second);
    }
    return out;
  };
  if (m["command"]) {
    s.command = r.located_str(m["command"], at + ".command");
    if (s.command.value.empty()) r.fail(ErrorKind::SpecBadValue, at + ".command is empty", m["command"]);
    in.key(m, "args", [&](const YAML::Node& v) {
      for (auto& a : r.str_list(v, at + ".args")) s.args.push_back(std::move(a.value));
    });
    in.key(m, "env", [&](const YAML::Node& v) { s.env = pairs(v, at + ".env"); });
    s.cwd = in.dir;
    in.key(m, "cwd", [&](const YAML::Node& v) { s.cwd = (in.dir / r.str(v, at + ".cwd")).lexically_normal(); });
    in.key(m, "headers", [&](const YAML::Node& v) {
      r.fail(ErrorKind::SpecConflict, at + ".headers is for a server over HTTP (url:)", v);
    });
  } else {
    s.url = r.located_str(m["url"], at + ".url");
    if (s.url.value.rfind("http://", 0) != 0 && s.url.value.rfind("https://", 0) != 0)
      r.fail(ErrorKind::SpecBadValue, at + ".url must start with http:// or https://", m["url"]);
    in.key(m, "headers", [&](const YAML::Node& v) {
      s.headers = pairs(v, at + ".headers");
      for (const auto& [name, value] : s.headers)  // a line break would end the header and start another
        if (name.find_first_of("\r\n:") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
          r.fail(ErrorKind::SpecBadValue, at + ".headers." + name + " must be one line (and a name without ':')",
                 v[name] ? v[name] : v);
    });
    for (const char* stdio_only : {"args", "env", "cwd"})
      in.key(m, stdio_only, [&](const YAML::Node& v) {
        r.fail(ErrorKind::SpecConflict, at + "." + stdio_only + " is for a server started as a command (command:)", v);
      });
  }
  in.key(m, "roots", [&](const YAML::Node& v) {
    for (auto& root : r.str_list(v, at + ".roots")) s.roots.push_back((in.dir / root.value).lexically_normal());
  });
  in.key(t, "tools", [&](const YAML::Node& v) {
    s.allow = r.str_list(v, path + ".tools");
    if (s.allow.empty()) r.fail(ErrorKind::SpecBadValue, path + ".tools lists no tool; leave it out to use them all", v);
  });
  in.key(t, "prefix", [&](const YAML::Node& v) { s.prefix = r.str(v, path + ".prefix"); });
  in.key(t, "timeout", [&](const YAML::Node& v) { s.timeout_s = in.seconds(v, path + ".timeout"); });
  for (const char* own : {"parameters", "limits", "description"})
    in.key(t, own, [&](const YAML::Node& v) {
      r.fail(ErrorKind::SpecConflict, path + "." + own + ": an MCP server's tools take theirs from the server", v);
    });
  return s;
}

// One entry of tools:, false when it was left out for a problem the validation noted.
bool tool(SectionReader& in, const YAML::Node& t, const std::string& path, ToolSpec& s) {
  YamlReader& r = in.r;
  r.expect_map(t, path, keys::kTool);
  s.loc = r.loc(t);
  bool named = in.entry([&] {
    if (!t["name"]) return;
    s.name = r.located_str(t["name"], path + ".name");
    in.check_name(s.name.value, "tool", t["name"]);
  });
  in.key(t, "description", [&](const YAML::Node& v) { s.description = r.str(v, path + ".description"); });
  in.key(t, "parameters", [&](const YAML::Node& v) {
    s.parameters = in.json_schema(v, path + ".parameters");
    s.parameters_loc = r.loc(v);
  });
  int implementations = (t["lua"] ? 1 : 0) + (t["builtin"] ? 1 : 0) + (t["workflow"] ? 1 : 0) + (t["mcp"] ? 1 : 0);
  if (implementations > 1) r.fail(ErrorKind::SpecConflict, path + " has more than one of lua, builtin, workflow and mcp; give one", t);
  for (const char* own : {"tools", "prefix", "timeout"})
    if (!t["mcp"])
      in.key(t, own, [&](const YAML::Node& v) {
        r.fail(ErrorKind::SpecUnknownKey, path + "." + own + " is for an mcp: server's tools", v);
      });
  bool implemented = in.entry([&] {
    if (t["mcp"]) {
      s.mcp = mcp(in, t, path);
    } else if (t["workflow"]) {
      s.workflow = r.located_str(t["workflow"], path + ".workflow");
      s.workflow_spec = in.sub_workflow(t["workflow"], path + ".workflow");
    } else if (t["lua"]) {
      s.lua = r.located_str(t["lua"], path + ".lua");
      s.lua_file = in.within_scope(s.lua.value, path + ".lua", t["lua"]);
    } else if (t["builtin"]) {
      s.builtin = r.located_str(t["builtin"], path + ".builtin");
    } else {
      r.fail(ErrorKind::SpecMissingKey,
             path + " needs an implementation: lua: FILE, builtin: NAME, workflow: FILE or mcp: SERVER", t);
    }
  });
  if (!t["name"] && !s.builtin.value.empty()) s.name = {s.builtin.value, s.builtin.loc};
  if (!t["name"] && s.mcp) s.name = {server_name(*s.mcp), s.mcp->loc};
  in.key(t, "limits", [&](const YAML::Node& v) { s.limits = in.lua_limits(v, path + ".limits"); });
  in.key(t, "allow", [&](const YAML::Node& v) {
    if (t["mcp"] || t["workflow"])
      r.fail(ErrorKind::SpecConflict, path + ".allow is for a Lua or built-in tool (an MCP server or a workflow reaches "
                                  "what it reaches itself)", v);
    s.allow = in.allow(v, path + ".allow");
  });
  in.key(t, "index", [&](const YAML::Node& v) {
    if (s.builtin.value != "search_docs")
      r.fail(ErrorKind::SpecConflict, path + ".index is for builtin: search_docs (where it keeps its index)", v);
    s.index = r.located_str(v, path + ".index");
    s.index_file = (in.dir / s.index.value).lexically_normal();
  });
  in.key(t, "on_error", [&](const YAML::Node& v) { s.on_error = in.one_of(v, path + ".on_error", {"observation", "fail"}); });
  in.key(t, "effect", [&](const YAML::Node& v) { s.effect = in.one_of(v, path + ".effect", effect_names()); });
  in.key(t, "approve", [&](const YAML::Node& v) {
    if (!v.IsMap()) {
      s.approve.all = *approval_named(in.one_of(v, path + ".approve", approval_names()).value);
      return;
    }
    r.expect_map(v, path + ".approve", keys::kApprove);
    for (const char* list : {"deny", "ask"}) {
      if (!v[list]) continue;
      if (!v[list].IsSequence())
        r.fail(ErrorKind::SpecWrongType, path + ".approve." + list + " must be a list of tool names or globs", v[list]);
      for (const auto& name : r.str_list(v[list], path + ".approve." + list))
        (std::string_view(list) == "deny" ? s.approve.deny : s.approve.ask).push_back(name.value);
    }
  });
  return named && implemented;
}

}  // namespace

std::vector<ToolSpec> read_tools(SectionReader& in, const YAML::Node& n) {
  std::vector<ToolSpec> out;
  if (!n.IsSequence()) in.r.fail(ErrorKind::SpecWrongType, "tools must be a list", n);
  for (size_t i = 0; i < n.size(); ++i) {
    ToolSpec s;
    bool whole = false;
    in.entry([&] { whole = tool(in, n[i], "tools[" + std::to_string(i) + "]", s); });
    if (whole) {
      out.push_back(std::move(s));
      continue;
    }
    // Left out: what names it (an agent's tools, a step) is not another problem of the file. Its name may be
    // unknown (a server's tools, a script's own name): then no name of a tool is judged.
    if (in.found()) {
      const YAML::Node name = n[i].IsMap() ? n[i]["name"] : YAML::Node();
      in.found()->left_out(Diagnostics::Entry::tool, name && name.IsScalar() ? name.Scalar() : s.name.value);
    }
  }
  return out;
}

}  // namespace engine::spec
