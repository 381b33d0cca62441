#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_scope.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "engine/schema/schema.h"
#include "engine/schema/schema_check.h"
#include "engine/schema/value_types.h"
#include "engine/spec/default_react.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/scripted_replies.h"
#include "engine/spec/workflow_spec.h"
#include "engine/spec/yaml_document.h"
#include "engine/spec/yaml_reader.h"

namespace engine::spec {
namespace {

// Whether a scalar's value was read from the environment: such a value in a header or a server's env is a key.
bool from_env(const YAML::Node& n) { return n.IsScalar() && n.Scalar().find("${") != std::string::npos; }

const std::vector<std::string> kStepKinds = {"template", "llm", "agent", "tool", "lua", "loop", "workflow"};

const std::vector<std::string> kOverrideProviders = {"openai", "ollama", "llamacpp", "anthropic", "replay"};
const std::vector<std::string> kProviders = [] {
  std::vector<std::string> all = {"scripted"};
  all.insert(all.end(), kOverrideProviders.begin(), kOverrideProviders.end());
  return all;
}();

class Loader {
 public:
  Loader(const SourceText& src, std::string display, std::filesystem::path dir, const FileScope& scope,
         const LoadOptions& options)
      : r_(src, process_environment()), display_(std::move(display)), dir_(std::move(dir)), scope_(scope),
        options_(options) {}

  WorkflowSpec load(const YAML::Node& root) {
    WorkflowSpec w;
    if (!root.IsDefined() || root.IsNull())
      r_.fail_at("spec.empty", "the workflow file is empty", SourceLoc{display_});
    r_.expect_map(root, "the workflow", keys::kTop);
    if (root["version"]) w.version = static_cast<int>(r_.integer(root["version"], "version", 1, 1));
    if (root["name"]) w.name = r_.str(root["name"], "name");
    if (root["description"]) w.description = r_.str(root["description"], "description");
    if (root["inputs"]) w.inputs = inputs(root["inputs"]);
    if (root["outputs"]) w.outputs = outputs(root["outputs"]);
    if (root["steps"] && root["agent"])
      r_.fail("spec.conflict", "a workflow has steps or one agent, not both: make the agent a step (kind: agent)",
              root["agent"]);
    if (!root["steps"]) r_.expect_present(root, "llm", "the workflow");
    if (root["llm"]) w.llm = llm(root["llm"]);
    if (root["tools"]) w.tools = tools(root["tools"]);
    if (root["steps"]) {
      w.steps = steps(root["steps"]);
      if (!root["llm"])
        for_each_step(w.steps, [&](const StepSpec& step) {
          if ((step.kind.value == "llm" || step.kind.value == "agent") && !step.llm)
            r_.fail_at("spec.missing_key", step.path + " (kind: " + step.kind.value +
                                               ") needs a model: add an llm block to the workflow",
                       step.kind.loc);
        });
    } else {
      r_.expect_present(root, "agent", "the workflow");
      w.agent = agent(root["agent"]);
    }
    check_references(w);
    return w;
  }

 private:
  std::vector<InputSpec> inputs(const YAML::Node& n) {
    std::vector<InputSpec> out;
    if (!n.IsMap()) r_.fail("spec.wrong_type", "inputs must be a mapping of input names", n);
    std::vector<std::string> seen;
    for (const auto& kv : n) {
      InputSpec in;
      in.name = r_.str(kv.first, "inputs");
      in.loc = r_.loc(kv.first);
      check_name(in.name, "input", kv.first);
      if (std::find(seen.begin(), seen.end(), in.name) != seen.end())
        r_.fail("spec.duplicate_key", "duplicate input '" + in.name + "'", kv.first);
      seen.push_back(in.name);
      std::string path = "inputs." + in.name;
      const YAML::Node& body = kv.second;
      if (body.IsScalar()) {  // `question: the user's question` is a description
        in.description = r_.str(body, path);
      } else if (!body.IsNull()) {
        r_.expect_map(body, path, keys::kInput);
        if (body["description"]) in.description = r_.str(body["description"], path + ".description");
        if (body["type"])
          in.type = one_of(body["type"], path + ".type",
                           std::vector<std::string>(std::begin(schema::kValueTypes), std::end(schema::kValueTypes)))
                        .value;
        if (body["default"]) {
          in.default_value = r_.value(body["default"], path + ".default");
          if (!in.type.empty() && !schema::has_value_type(*in.default_value, in.type))
            r_.fail("spec.wrong_type", path + ".default must be " + schema::with_article(in.type) +
                                           " (the input's type), got " + schema::json_type_name(*in.default_value),
                    body["default"]);
        }
        if (body["required"] && !r_.boolean(body["required"], path + ".required") && !in.default_value) {
          if (!in.type.empty() && in.type != "string")
            r_.fail("spec.bad_value", path + ": an optional input of type " + in.type +
                                          " needs a default of that type (without one it would be \"\")",
                    body["required"]);
          in.default_value = Value("");
        }
      }
      out.push_back(std::move(in));
    }
    return out;
  }

  std::vector<OutputSpec> outputs(const YAML::Node& n) {
    std::vector<OutputSpec> out;
    if (!n.IsMap()) r_.fail("spec.wrong_type", "outputs must be a mapping of output names", n);
    for (const auto& kv : n) {
      OutputSpec o;
      o.name = r_.str(kv.first, "outputs");
      o.loc = r_.loc(kv.first);
      check_name(o.name, "output", kv.first);
      std::string path = "outputs." + o.name;
      o.value = {"{{ output }}", o.loc};
      if (kv.second.IsScalar()) {
        o.description = r_.str(kv.second, path);
      } else if (!kv.second.IsNull()) {
        r_.expect_map(kv.second, path, keys::kOutput);
        if (kv.second["description"]) o.description = r_.str(kv.second["description"], path + ".description");
        if (kv.second["value"]) o.value = r_.located_raw(kv.second["value"], path + ".value");
      }
      out.push_back(std::move(o));
    }
    return out;
  }

  // An llm block: the workflow's (`at` is "llm") or a step's own ("steps.NAME.llm").
  LlmSpec llm(const YAML::Node& n, const std::string& at = "llm") {
    LlmSpec l;
    l.loc = r_.loc(n);
    r_.expect_map(n, at, keys::kLlm);
    if (n["provider"]) {
      l.provider = r_.located_str(n["provider"], at + ".provider");
      const std::string& p = l.provider.value;
      if (std::find(kProviders.begin(), kProviders.end(), p) == kProviders.end())
        r_.fail("spec.bad_value", "unknown llm.provider '" + p + "'" + did_you_mean(p, kProviders), n["provider"]);
    }
    if (n["model"]) l.model = r_.str(n["model"], at + ".model");
    l.chat_template = template_source(n["chat_template"], at + ".chat_template");
    if (n["base_url"]) l.base_url = r_.str(n["base_url"], at + ".base_url");
    if (n["api_key_env"]) {
      l.api_key_env = r_.str(n["api_key_env"], at + ".api_key_env");
      if (auto key = process_environment()(l.api_key_env)) options_.secrets->add(*key);
    }
    if (n["max_retries"]) l.max_retries = static_cast<int>(r_.integer(n["max_retries"], at + ".max_retries", 0, 20));
    if (n["timeout"]) l.timeout_s = r_.number(n["timeout"], at + ".timeout", 0.001, limits::kSeconds);
    if (n["connect_timeout"]) l.connect_timeout_s = r_.number(n["connect_timeout"], at + ".connect_timeout", 0.001, limits::kSeconds);
    if (n["read_timeout"]) l.read_timeout_s = r_.number(n["read_timeout"], at + ".read_timeout", 0.001, limits::kSeconds);
    if (n["endpoint"]) l.endpoint = one_of(n["endpoint"], at + ".endpoint", {"chat", "completions"});
    if (n["seed"]) l.seed = r_.integer(n["seed"], at + ".seed", -(1LL << 53), 1LL << 53);
    if (n["response_format"]) {
      l.response_format = response_format(n["response_format"], at);
      l.response_format_loc = r_.loc(n["response_format"]);
    }
    if (n["tool_choice"]) l.tool_choice = r_.located_str(n["tool_choice"], at + ".tool_choice");
    if (n["parallel_tool_calls"]) l.parallel_tool_calls = r_.boolean(n["parallel_tool_calls"], at + ".parallel_tool_calls");
    if (n["anthropic_version"]) l.anthropic_version = r_.str(n["anthropic_version"], at + ".anthropic_version");
    if (n["recording"]) {
      l.recording = r_.located_str(n["recording"], at + ".recording");
      // The workflow's own data, not a shared file: never looked for on the search path; one not there yet is
      // reported when the run reads it.
      try {
        l.recording_file = scope_.resolve(dir_, l.recording.value);
      } catch (const Error& e) {
        r_.fail(e.kind(), at + ".recording: " + e.message(), n["recording"]);
      }
    }
    if (n["prices"]) l.prices = prices(n["prices"], at);
    if (n["max_concurrent_calls"])
      l.max_concurrent_calls = static_cast<int>(r_.integer(n["max_concurrent_calls"], at + ".max_concurrent_calls", 1, 256));
    if (n["max_tokens_field"])
      l.max_tokens_field = one_of(n["max_tokens_field"], at + ".max_tokens_field", {"max_tokens", "max_completion_tokens"}).value;
    if (n["extra"]) {
      if (!n["extra"].IsMap()) r_.fail("spec.wrong_type", at + ".extra must be a mapping of request keys", n["extra"]);
      l.extra = r_.value(n["extra"], at + ".extra");
    }
    if (const YAML::Node& t = n["chat_template_tools"]) {
      l.chat_template_tools_loc = r_.loc(t);
      if (t.IsScalar() && r_.str(t, at + ".chat_template_tools") == "all") l.chat_template_all_tools = true;
      else if (t.IsSequence()) l.chat_template_tools = r_.str_list(t, at + ".chat_template_tools");
      else r_.fail("spec.wrong_type", at + ".chat_template_tools must be `all` or a list of the agent's tools", t);
    }
    if (n["add_generation_prompt"]) l.add_generation_prompt = r_.boolean(n["add_generation_prompt"], at + ".add_generation_prompt");
    if (n["chat_template_kwargs"]) {
      if (!n["chat_template_kwargs"].IsMap())
        r_.fail("spec.wrong_type", at + ".chat_template_kwargs must be a mapping of template variables", n["chat_template_kwargs"]);
      l.chat_template_kwargs = r_.value(n["chat_template_kwargs"], at + ".chat_template_kwargs");
      for (std::string own : {"messages", "tools", "add_generation_prompt", "bos_token", "eos_token"})
        if (l.chat_template_kwargs.contains(own))
          r_.fail("spec.conflict", at + ".chat_template_kwargs." + own + " is given by the engine (" +
                                       (own == "messages" ? "from the prompt"
                                                          : "llm." + (own == "tools" ? "chat_template_tools" : own)) +
                                       ")",
                  n["chat_template_kwargs"][own]);
    }
    if (n["bos_token"]) l.bos_token = r_.str(n["bos_token"], at + ".bos_token");
    if (n["eos_token"]) l.eos_token = r_.str(n["eos_token"], at + ".eos_token");
    if (n["temperature"]) l.temperature = r_.number(n["temperature"], at + ".temperature", 0);
    if (n["max_tokens"]) l.max_tokens = static_cast<int>(r_.integer(n["max_tokens"], at + ".max_tokens", 1, 1 << 24));
    if (n["scripted"]) {
      const YAML::Node& s = n["scripted"];
      r_.expect_map(s, at + ".scripted", keys::kScripted);
      if (s["replies"]) l.replies = read_scripted_replies(r_, s["replies"], at + ".scripted.replies");
      if (s["latency_ms"]) l.latency_ms = static_cast<int>(r_.integer(s["latency_ms"], at + ".scripted.latency_ms", 0, 600000));
      if (s["fail"]) {
        const YAML::Node& f = s["fail"];
        r_.expect_map(f, at + ".scripted.fail", keys::kScriptedFail);
        if (!f["status"]) r_.fail("spec.missing_key", at + ".scripted.fail needs status: an HTTP status, 400 to 599", f);
        l.fail_status = static_cast<int>(r_.integer(f["status"], at + ".scripted.fail.status", 400, 599));
        l.fail_times = f["times"] ? static_cast<int>(r_.integer(f["times"], at + ".scripted.fail.times", 1, 1000)) : 1;
      }
      if (s["rules"]) {
        const YAML::Node& rules = s["rules"];
        if (!rules.IsSequence()) r_.fail("spec.wrong_type", at + ".scripted.rules must be a list", rules);
        for (size_t i = 0; i < rules.size(); ++i) {
          std::string path = at + ".scripted.rules[" + std::to_string(i) + "]";
          r_.expect_map(rules[i], path, keys::kScriptedRule);
          std::vector<std::string> given;
          for (const char* key : {"match", "user", "tool"})
            if (rules[i][key]) given.push_back(key);
          if (given.empty())
            r_.fail("spec.missing_key",
                    path + " needs match: (a regex on the whole prompt), user: (on the user's last message) or tool: "
                           "(on a tool's result)",
                    rules[i]);
          if (given.size() > 1)
            r_.fail("spec.conflict", path + " has " + given[0] + " and " + given[1] + "; give one of them", rules[i]);
          if (!rules[i]["tool_calls"]) r_.expect_present(rules[i], "reply", path);
          ScriptedRuleSpec rule{r_.located_raw(rules[i][given[0]], path + "." + given[0]), given[0], {}, {}};
          if (rules[i]["reply"]) rule.reply = r_.located_raw(rules[i]["reply"], path + ".reply");
          if (rules[i]["tool_calls"]) rule.tool_calls = read_scripted_tool_calls(r_, rules[i]["tool_calls"], path + ".tool_calls", true);
          l.rules.push_back(std::move(rule));
        }
      }
      if (!l.replies.empty() && !l.rules.empty())
        r_.fail("spec.conflict", at + ".scripted has both replies and rules; give one of them", s);
    }
    if (l.provider.value == "scripted" && l.replies.empty() && l.rules.empty())
      r_.fail("spec.missing_key", "the scripted provider needs " + at + ".scripted.replies or " + at + ".scripted.rules", n);
    if (l.provider.value == "replay" && l.recording.value.empty())
      r_.fail("spec.missing_key", "the replay provider needs " + at + ".recording: FILE (a file written by --record)", n);
    return l;
  }

  // A JSON Schema written in the file, checked here with its first problem located at its node. Its patterns are
  // compiled when the workflow is built: spec/ has no regex engine.
  Value json_schema(const YAML::Node& n, const std::string& path) {
    if (!n.IsMap()) r_.fail("spec.wrong_type", path + " must be a JSON Schema: a mapping such as {type: object, properties: ...}", n);
    Value v = r_.value(n, path);
    schema::SchemaOptions syntax_only{
        [](const std::string&) { return schema::Matcher([](std::string_view) { return true; }); }};
    auto problems = schema::check_schema(v, syntax_only);
    if (problems.empty()) return v;
    // Walk the pointer down the YAML to the node the problem is at, naming the way as a key path.
    YAML::Node at = n;
    std::string where = path;
    std::string_view rest = problems[0].pointer;
    while (!rest.empty()) {
      rest.remove_prefix(1);
      size_t slash = rest.find('/');
      std::string token = schema::unescape_pointer_token(rest.substr(0, slash));
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
      YAML::Node next;
      if (at.IsMap()) {
        next = at[token];
        where += "." + token;
      } else if (at.IsSequence()) {
        size_t i = static_cast<size_t>(std::strtoul(token.c_str(), nullptr, 10));
        if (i < at.size()) next = at[i];
        where += "[" + token + "]";
      }
      if (!next.IsDefined()) break;
      at = next;
    }
    r_.fail("schema.invalid", where + ": " + problems[0].message, at);
  }

  // `json_object` or `text` as shorthand for {type: ...}, or the whole object as the API takes it.
  Value response_format(const YAML::Node& n, const std::string& at) {
    if (n.IsScalar()) {
      std::string type = one_of(n, at + ".response_format", {"text", "json_object"}).value;
      return Value{{"type", type}};
    }
    if (!n.IsMap()) r_.fail("spec.wrong_type", at + ".response_format must be json_object, text, or a mapping", n);
    Value v = r_.value(n, at + ".response_format");
    if (!v.contains("type") || !v["type"].is_string())
      r_.fail("spec.missing_key", at + ".response_format needs a type (json_object, json_schema or text)", n);
    // OpenAI's {type: json_schema, json_schema: {name, schema, strict}}: the schema is checked as any other, and the
    // replies are validated against it (assemble/).
    if (v["type"] == "json_schema") {
      const YAML::Node& spec = n["json_schema"];
      if (!spec || !spec.IsMap() || !spec["schema"])
        r_.fail("spec.missing_key", at + ".response_format of type json_schema needs json_schema: {name, schema}", n);
      json_schema(spec["schema"], at + ".response_format.json_schema.schema");
    }
    return v;
  }

  // model -> {prompt, completion}, USD per million tokens.
  std::vector<std::pair<std::string, ModelPrice>> prices(const YAML::Node& n, const std::string& at) {
    std::vector<std::pair<std::string, ModelPrice>> out;
    if (!n.IsMap()) r_.fail("spec.wrong_type", at + ".prices must map model names to {prompt, completion}", n);
    for (const auto& kv : n) {
      std::string model = r_.str(kv.first, at + ".prices");
      std::string path = at + ".prices." + model;
      r_.expect_map(kv.second, path, keys::kPrice);
      r_.expect_present(kv.second, "prompt", path);
      r_.expect_present(kv.second, "completion", path);
      out.push_back({model, {r_.number(kv.second["prompt"], path + ".prompt", 0),
                             r_.number(kv.second["completion"], path + ".completion", 0)}});
    }
    return out;
  }

  LuaLimitsSpec lua_limits(const YAML::Node& lim, const std::string& path) {
    LuaLimitsSpec s;
    r_.expect_map(lim, path, keys::kLuaLimits);
    if (lim["instructions"]) s.instructions = r_.integer(lim["instructions"], path + ".instructions", 1000, 100'000'000'000LL);
    if (lim["memory_mb"]) s.memory_mb = r_.integer(lim["memory_mb"], path + ".memory_mb", 1, 4096);
    if (lim["timeout_ms"]) s.timeout_ms = r_.integer(lim["timeout_ms"], path + ".timeout_ms", 1, 3'600'000);
    s.timeout_given = static_cast<bool>(lim["timeout_ms"]);
    return s;
  }

  // `allow:` beside a Lua tool, a lua step, a Lua parser or a built-in: what it may reach (grants.h).
  AllowSpec allow(const YAML::Node& n, const std::string& path) {
    AllowSpec a;
    r_.expect_map(n, path, keys::kAllow);
    if (n["http"]) {
      const YAML::Node& list = n["http"];
      if (!list.IsSequence() || list.size() == 0)
        r_.fail("spec.wrong_type", path + ".http must be a list of {url, methods, headers}", list);
      for (size_t i = 0; i < list.size(); ++i) {
        std::string at = path + ".http[" + std::to_string(i) + "]";
        const YAML::Node& g = list[i];
        r_.expect_map(g, at, keys::kHttpGrant);
        r_.expect_present(g, "url", at);
        HttpGrantSpec h;
        h.url = r_.located_str(g["url"], at + ".url");
        if (h.url.value.find_first_of("?#") != std::string::npos)
          r_.fail("spec.bad_value", at + ".url is a prefix: scheme, host, port and a path, without ? or #", g["url"]);
        if (g["methods"]) {
          h.methods.clear();
          static const std::vector<std::string> kMethods = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
          for (auto& m : r_.str_list(g["methods"], at + ".methods")) {
            std::string upper = m.value;
            for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            if (std::find(kMethods.begin(), kMethods.end(), upper) == kMethods.end())
              r_.fail("spec.bad_value", at + ".methods: '" + m.value + "' is not one of " + quoted_list(kMethods), g["methods"]);
            h.methods.push_back(upper);
          }
          if (h.methods.empty()) r_.fail("spec.bad_value", at + ".methods lists no method", g["methods"]);
        }
        if (g["headers"]) {
          const YAML::Node& hs = g["headers"];
          if (!hs.IsMap()) r_.fail("spec.wrong_type", at + ".headers must be a mapping of names to text", hs);
          for (const auto& kv : hs) {
            std::string name = kv.first.as<std::string>();
            std::string value = r_.str(kv.second, at + ".headers." + name);
            if (name.empty() || name.find_first_of("\r\n: ") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
              r_.fail("spec.bad_value", at + ".headers." + name + " must be one line (and a name without ':' or spaces)", kv.second);
            if (from_env(kv.second) || is_credential_header(name)) options_.secrets->add(value);
            h.headers.emplace_back(std::move(name), std::move(value));
          }
        }
        if (g["max_bytes"]) h.max_bytes = r_.integer(g["max_bytes"], at + ".max_bytes", 1, 1LL << 30);
        a.http.push_back(std::move(h));
      }
    }
    if (n["files"]) {
      const YAML::Node& list = n["files"];
      if (!list.IsSequence() || list.size() == 0)
        r_.fail("spec.wrong_type", path + ".files must be a list of {root, write}", list);
      for (size_t i = 0; i < list.size(); ++i) {
        std::string at = path + ".files[" + std::to_string(i) + "]";
        const YAML::Node& g = list[i];
        r_.expect_map(g, at, keys::kFilesGrant);
        r_.expect_present(g, "root", at);
        FilesGrantSpec f;
        f.root = r_.located_str(g["root"], at + ".root");
        f.root_dir = granted_root(f.root.value, at + ".root", g["root"]);
        if (g["write"]) f.write = r_.boolean(g["write"], at + ".write");
        if (g["max_bytes"]) f.max_bytes = r_.integer(g["max_bytes"], at + ".max_bytes", 1, 1LL << 30);
        a.files.push_back(std::move(f));
      }
    }
    if (a.empty()) r_.fail("spec.bad_value", path + " grants nothing: give http: or files:", n);
    return a;
  }

  // A files root: a folder, relative to the workflow's, never a system folder. It may lie outside the workflow's
  // folder (`root: ../docs`): a grant is the author's explicit word, shown by `engine tools`.
  std::filesystem::path granted_root(const std::string& written, const std::string& path, const YAML::Node& at) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path root = fs::weakly_canonical(dir_ / written, ec);
    if (ec || !fs::is_directory(root, ec)) r_.fail("io.not_found", path + ": no folder '" + written + "'", at);
    for (const char* system : {"/proc", "/dev", "/sys"})
      if (root == system || root.string().rfind(std::string(system) + "/", 0) == 0)
        r_.fail("io.outside_scope", path + ": '" + written + "' is a system folder", at);
    if (root == "/") r_.fail("io.outside_scope", path + ": '" + written + "' is the whole file system", at);
    return root;
  }

  std::vector<ToolSpec> tools(const YAML::Node& n) {
    std::vector<ToolSpec> out;
    if (!n.IsSequence()) r_.fail("spec.wrong_type", "tools must be a list", n);
    for (size_t i = 0; i < n.size(); ++i) {
      const YAML::Node& t = n[i];
      std::string path = "tools[" + std::to_string(i) + "]";
      r_.expect_map(t, path, keys::kTool);
      ToolSpec s;
      s.loc = r_.loc(t);
      if (t["name"]) {
        s.name = r_.located_str(t["name"], path + ".name");
        check_name(s.name.value, "tool", t["name"]);
      }
      if (t["description"]) s.description = r_.str(t["description"], path + ".description");
      if (t["parameters"]) {
        s.parameters = json_schema(t["parameters"], path + ".parameters");
        s.parameters_loc = r_.loc(t["parameters"]);
      }
      int implementations = (t["lua"] ? 1 : 0) + (t["builtin"] ? 1 : 0) + (t["workflow"] ? 1 : 0) + (t["mcp"] ? 1 : 0);
      if (implementations > 1)
        r_.fail("spec.conflict", path + " has more than one of lua, builtin, workflow and mcp; give one", t);
      for (const char* own : {"tools", "prefix", "timeout"})
        if (t[own] && !t["mcp"]) r_.fail("spec.unknown_key", path + "." + own + " is for an mcp: server's tools", t[own]);
      if (t["mcp"]) {
        s.mcp = mcp(t, path);
      } else if (t["workflow"]) {
        s.workflow = r_.located_str(t["workflow"], path + ".workflow");
        s.workflow_spec = sub_workflow(t["workflow"], path + ".workflow");
      } else if (t["lua"]) {
        s.lua = r_.located_str(t["lua"], path + ".lua");
        s.lua_file = within_scope(s.lua.value, path + ".lua", t["lua"]);
      } else if (t["builtin"]) {
        s.builtin = r_.located_str(t["builtin"], path + ".builtin");
      } else {
        r_.fail("spec.missing_key",
                path + " needs an implementation: lua: FILE, builtin: NAME, workflow: FILE or mcp: SERVER", t);
      }
      if (!t["name"] && !s.builtin.value.empty()) s.name = {s.builtin.value, s.builtin.loc};
      if (!t["name"] && s.mcp) s.name = {server_name(*s.mcp), s.mcp->loc};
      if (t["limits"]) s.limits = lua_limits(t["limits"], path + ".limits");
      if (t["allow"]) {
        if (s.mcp || t["workflow"])
          r_.fail("spec.conflict", path + ".allow is for a Lua or built-in tool (an MCP server or a workflow reaches "
                                   "what it reaches itself)", t["allow"]);
        s.allow = allow(t["allow"], path + ".allow");
      }
      if (t["index"]) {
        if (s.builtin.value != "search_docs")
          r_.fail("spec.conflict", path + ".index is for builtin: search_docs (where it keeps its index)", t["index"]);
        s.index = r_.located_str(t["index"], path + ".index");
        s.index_file = (dir_ / s.index.value).lexically_normal();
      }
      if (t["on_error"]) s.on_error = one_of(t["on_error"], path + ".on_error", {"observation", "fail"});
      out.push_back(std::move(s));
    }
    return out;
  }

  // A time as seconds: a number, or a number with its unit ("30s", "500ms", "2m"), as docker and cagent write them.
  double seconds(const YAML::Node& n, const std::string& path) {
    std::string text = n.IsScalar() ? n.Scalar() : "";
    double unit = 1;
    for (auto [suffix, factor] : {std::pair{"ms", 0.001}, std::pair{"s", 1.0}, std::pair{"m", 60.0}}) {
      std::string_view sv(suffix);
      if (text.size() > sv.size() && text.compare(text.size() - sv.size(), sv.size(), sv) == 0) {
        text.resize(text.size() - sv.size());
        unit = factor;
        break;
      }
    }
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(v * unit >= 0.001) || v * unit > limits::kSeconds)
      r_.fail("spec.bad_value", path + " must be a time from 1 ms to a day: seconds, or a number with ms, s or m", n);
    return v * unit;
  }

  // What messages call a server: the package or script it runs (`npx -y @scope/server-x` is server-x), the
  // program otherwise, or the host of its URL.
  static std::string server_name(const McpSpec& m) {
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
  McpSpec mcp(const YAML::Node& t, const std::string& path) {
    const YAML::Node& m = t["mcp"];
    std::string at = path + ".mcp";
    r_.expect_map(m, at, keys::kMcp);
    McpSpec s;
    s.loc = r_.loc(m);
    if (m["command"] && m["url"]) r_.fail("spec.conflict", at + " has both command (stdio) and url (HTTP); give one", m);
    if (!m["command"] && !m["url"])
      r_.fail("spec.missing_key", at + " needs command: (a server over stdio) or url: (over Streamable HTTP)", m);
    auto pairs = [&](const YAML::Node& n, const std::string& key_path) {
      if (!n.IsMap()) r_.fail("spec.wrong_type", key_path + " must be a mapping of names to text", n);
      std::vector<std::pair<std::string, std::string>> out;
      for (const auto& kv : n) {
        std::string name = kv.first.as<std::string>();
        out.emplace_back(name, r_.str(kv.second, key_path + "." + name));
        // Added before anything below can fail: an error that quotes the value is masked as it is printed.
        if (from_env(kv.second) || is_credential_header(name)) options_.secrets->add(out.back().second);
      }
      return out;
    };
    if (m["command"]) {
      s.command = r_.located_str(m["command"], at + ".command");
      if (s.command.value.empty()) r_.fail("spec.bad_value", at + ".command is empty", m["command"]);
      if (m["args"])
        for (auto& a : r_.str_list(m["args"], at + ".args")) s.args.push_back(std::move(a.value));
      if (m["env"]) s.env = pairs(m["env"], at + ".env");
      s.cwd = dir_;
      if (m["cwd"]) s.cwd = (dir_ / r_.str(m["cwd"], at + ".cwd")).lexically_normal();
      for (const char* http_only : {"headers"})
        if (m[http_only]) r_.fail("spec.conflict", at + "." + http_only + " is for a server over HTTP (url:)", m[http_only]);
    } else {
      s.url = r_.located_str(m["url"], at + ".url");
      if (s.url.value.rfind("http://", 0) != 0 && s.url.value.rfind("https://", 0) != 0)
        r_.fail("spec.bad_value", at + ".url must start with http:// or https://", m["url"]);
      if (m["headers"]) s.headers = pairs(m["headers"], at + ".headers");
      for (const auto& [name, value] : s.headers)  // a line break would end the header and start another
        if (name.find_first_of("\r\n:") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
          r_.fail("spec.bad_value", at + ".headers." + name + " must be one line (and a name without ':')",
                  m["headers"][name] ? m["headers"][name] : m["headers"]);
      for (const char* stdio_only : {"args", "env", "cwd"})
        if (m[stdio_only])
          r_.fail("spec.conflict", at + "." + stdio_only + " is for a server started as a command (command:)", m[stdio_only]);
    }
    if (m["roots"])
      for (auto& r : r_.str_list(m["roots"], at + ".roots")) s.roots.push_back((dir_ / r.value).lexically_normal());
    if (t["tools"]) {
      s.allow = r_.str_list(t["tools"], path + ".tools");
      if (s.allow.empty()) r_.fail("spec.bad_value", path + ".tools lists no tool; leave it out to use them all", t["tools"]);
    }
    if (t["prefix"]) s.prefix = r_.str(t["prefix"], path + ".prefix");
    if (t["timeout"]) s.timeout_s = seconds(t["timeout"], path + ".timeout");
    for (const char* own : {"parameters", "limits", "description"})
      if (t[own]) r_.fail("spec.conflict", path + "." + own + ": an MCP server's tools take theirs from the server", t[own]);
    return s;
  }

  // One parser; a missing node is the default regex parser (LangChain's ReAct format).
  ParserSpec parser(const YAML::Node& p, const std::string& path, const SourceLoc& agent_loc) {
    ParserSpec s;
    s.path = path;
    if (p) {
      if (p.IsMap() && p["kind"]) s.kind = one_of(p["kind"], path + ".kind", {"regex", "json_blob", "keyword", "lua"});
      r_.expect_map(p, path, s.kind.value == "json_blob" ? keys::kParserJsonBlob
                             : s.kind.value == "keyword" ? keys::kParserKeyword
                             : s.kind.value == "lua"     ? keys::kParserLua
                                                         : keys::kParserRegex);
      if (s.kind.value == "lua") {
        r_.expect_present(p, "script", path);
        s.script = r_.located_str(p["script"], path + ".script");
        s.script_file = within_scope(s.script.value, path + ".script", p["script"]);
        if (p["function"]) s.function = r_.str(p["function"], path + ".function");
        if (p["limits"]) s.limits = lua_limits(p["limits"], path + ".limits");
        if (p["allow"]) s.allow = allow(p["allow"], path + ".allow");
      }
      if (s.kind.value == "keyword") {
        r_.expect_present(p, "rules", path);
        const YAML::Node& rules = p["rules"];
        if (!rules.IsSequence() || rules.size() == 0)
          r_.fail("spec.wrong_type", path + ".rules must be a list of {match, tool, input}", rules);
        for (size_t i = 0; i < rules.size(); ++i) {
          std::string at = path + ".rules[" + std::to_string(i) + "]";
          r_.expect_map(rules[i], at, keys::kKeywordRule);
          r_.expect_present(rules[i], "match", at);
          r_.expect_present(rules[i], "tool", at);
          KeywordRuleSpec rule{r_.located_raw(rules[i]["match"], at + ".match"),
                               r_.located_str(rules[i]["tool"], at + ".tool"), {}};
          if (rules[i]["input"]) rule.input = r_.located_raw(rules[i]["input"], at + ".input");
          s.keyword_rules.push_back(std::move(rule));
        }
      }
      if (p["final_answer"]) s.final_answer = r_.located_raw(p["final_answer"], path + ".final_answer");
      if (p["action"]) s.action = r_.located_raw(p["action"], path + ".action");
      if (p["dotall"]) s.dotall = r_.boolean(p["dotall"], path + ".dotall");
      if (p["strip_quotes"]) s.strip_quotes = r_.boolean(p["strip_quotes"], path + ".strip_quotes");
      if (p["decode_xml_entities"])
        s.decode_xml_entities = r_.boolean(p["decode_xml_entities"], path + ".decode_xml_entities");
      if (p["both"]) s.both = one_of(p["both"], path + ".both", {"error", "final_answer", "action"}).value;
      if (p["action_key"]) s.action_key = r_.str(p["action_key"], path + ".action_key");
      if (p["input_key"]) s.input_key = r_.str(p["input_key"], path + ".input_key");
      if (p["final_action"]) s.final_action = r_.str(p["final_action"], path + ".final_action");
    }
    if (s.final_answer.value.empty()) s.final_answer = {kDefaultFinalAnswerRegex, agent_loc};
    if (s.action.value.empty()) s.action = {kDefaultActionRegex, agent_loc};
    return s;
  }

  // The agent block at `at` (agent, or a step's steps.NAME.agent), every message naming that key path.
  AgentSpec agent(const YAML::Node& n, const std::string& at = "agent") {
    AgentSpec a;
    a.path = at;
    a.loc = r_.loc(n);
    r_.expect_map(n, at, keys::kAgent);
    if (n["kind"]) a.kind = one_of(n["kind"], at + ".kind", {"react", "tool_calling"});
    bool tool_calling = a.kind.value == "tool_calling";
    if (tool_calling)
      for (const char* key : {"parser", "scratchpad", "on_parse_error"})
        if (n[key])
          r_.fail("spec.conflict", at + "." + key +
                                       " is for react agents; a tool_calling agent reads the model's tool calls, not its text",
                  n[key]);
    if (n["prompt"] && n["prompt"].IsSequence()) a.messages = messages(n["prompt"], at + ".prompt");
    else a.prompt = template_source(n["prompt"], at + ".prompt");
    a.scratchpad = template_source(n["scratchpad"], at + ".scratchpad");
    if (n["output_schema"]) {
      a.output_schema = json_schema(n["output_schema"], at + ".output_schema");
      a.output_schema_loc = r_.loc(n["output_schema"]);
    }
    if (n["stop"]) {
      for (auto& s : r_.str_list(n["stop"], at + ".stop")) a.stop.push_back(std::move(s.value));
      a.stop_given = true;
    }
    const YAML::Node& parsers = n["parser"];
    if (parsers && parsers.IsSequence()) {
      if (parsers.size() == 0) r_.fail("spec.wrong_type", at + ".parser is an empty list; give at least one parser", parsers);
      for (size_t i = 0; i < parsers.size(); ++i)
        a.parsers.push_back(parser(parsers[i], at + ".parser[" + std::to_string(i) + "]", a.loc));
    } else {
      a.parsers.push_back(parser(parsers, at + ".parser", a.loc));
    }
    if (n["max_iterations"])
      a.max_iterations = static_cast<int>(r_.integer(n["max_iterations"], at + ".max_iterations", 1, 10000));
    if (n["max_execution_time"])
      a.max_execution_time = r_.number(n["max_execution_time"], at + ".max_execution_time", 0, limits::kSeconds);
    if (n["max_tokens_total"])
      a.max_tokens_total = static_cast<long>(r_.integer(n["max_tokens_total"], at + ".max_tokens_total", 1, 1LL << 40));
    if (n["max_cost"]) {
      a.max_cost = r_.number(n["max_cost"], at + ".max_cost", 0);
      a.max_cost_loc = r_.loc(n["max_cost"]);
    }
    if (n["early_stopping"]) a.early_stopping = one_of(n["early_stopping"], at + ".early_stopping", {"force", "generate"});
    if (n["memory"]) a.memory = memory(n["memory"], at + ".memory");
    if (n["on_parse_error"]) a.on_parse_error = one_of(n["on_parse_error"], at + ".on_parse_error", {"fail", "retry"});
    if (n["tools"]) {
      a.tools = r_.str_list(n["tools"], at + ".tools");
      a.tools_given = true;
    }
    if (n["return_direct"]) a.return_direct = r_.str_list(n["return_direct"], at + ".return_direct");
    if (n["observation_prefix"]) a.observation_prefix = r_.str(n["observation_prefix"], at + ".observation_prefix");
    if (n["llm_prefix"]) a.llm_prefix = r_.str(n["llm_prefix"], at + ".llm_prefix");
    if (n["temperature"]) a.temperature = r_.number(n["temperature"], at + ".temperature", 0);
    if (n["max_tokens"]) a.max_tokens = static_cast<int>(r_.integer(n["max_tokens"], at + ".max_tokens", 1, 1 << 24));
    if (n["template_options"]) {
      const YAML::Node& o = n["template_options"];
      r_.expect_map(o, at + ".template_options", keys::kTemplateOptions);
      if (o["strict_undefined"])
        a.template_flags.strict_undefined = r_.boolean(o["strict_undefined"], at + ".template_options.strict_undefined");
      if (o["trim_blocks"]) a.template_flags.trim_blocks = r_.boolean(o["trim_blocks"], at + ".template_options.trim_blocks");
      if (o["lstrip_blocks"])
        a.template_flags.lstrip_blocks = r_.boolean(o["lstrip_blocks"], at + ".template_options.lstrip_blocks");
    }
    if (tool_calling && !a.prompt.given && a.messages.empty()) a.messages = default_tool_calling_messages(a.loc);
    // A tool-calling conversation has no ReAct prefixes; the console shows observations bare, as LangChain does.
    if (tool_calling && !n["observation_prefix"]) a.observation_prefix = "";
    if (tool_calling && !n["llm_prefix"]) a.llm_prefix = "";
    if (!a.prompt.given && a.messages.empty()) a.prompt = {kDefaultReactPrompt, "built-in react prompt", dir_, a.loc, false};
    if (!a.scratchpad.given) a.scratchpad = {default_scratchpad(a.observation_prefix, a.llm_prefix),
                                             "built-in scratchpad", dir_, a.loc, false};
    if (!a.stop_given && !tool_calling) a.stop = {"\n" + std::string(trim(a.observation_prefix))};
    return a;
  }

  // The steps of the workflow (at `steps`), or of a loop's body (at `steps.NAME.steps`). A step's name is one in the
  // whole file, so that `steps.NAME` names one step wherever it is read.
  std::vector<StepSpec> steps(const YAML::Node& n, const std::string& at = "steps") {
    if (!n.IsMap() || n.size() == 0) r_.fail("spec.wrong_type", at + " must be a mapping of step names", n);
    if (n.size() > limits::kSteps)
      r_.fail("spec.too_many_steps", "a workflow has at most " + std::to_string(limits::kSteps) + " steps, got " +
                                         std::to_string(n.size()), n);
    std::vector<StepSpec> out;
    for (const auto& kv : n) {
      StepSpec st;
      st.name = r_.str(kv.first, at);
      st.loc = r_.loc(kv.first);
      check_name(st.name, "step", kv.first);
      if (std::find(seen_steps_.begin(), seen_steps_.end(), st.name) != seen_steps_.end())
        r_.fail("spec.duplicate_key", "duplicate step '" + st.name + "' (a step's name is one in the whole file)", kv.first);
      seen_steps_.push_back(st.name);
      std::string path = at + "." + st.name;
      st.path = path;
      const YAML::Node& b = kv.second;
      r_.expect_map(b, path, keys::kStep);
      r_.expect_present(b, "kind", path);
      st.kind = one_of(b["kind"], path + ".kind", kStepKinds);
      // Each kind takes its own key; another kind's key is a mistake worth naming.
      const std::string& kind = st.kind.value;
      const char* own = kind == "template" ? "template"
                        : kind == "llm"    ? "prompt"
                        : kind == "tool"   ? "tool"
                        : kind == "loop"   ? "steps"
                        : kind == "workflow" ? "workflow"
                        : kind == "lua"    ? "lua"
                                           : "agent";
      for (const char* key : {"template", "prompt", "agent", "inputs", "tool", "input", "steps", "until",
                              "max_iterations", "workflow", "lua", "limits", "allow"}) {
        std::string k = key;
        bool allowed = k == own || ((kind == "agent" || kind == "workflow" || kind == "lua") && k == "inputs") ||
                       (kind == "tool" && k == "input") || (kind == "lua" && (k == "limits" || k == "allow")) ||
                       (kind == "loop" && (k == "until" || k == "max_iterations"));
        if (b[key] && !allowed)
          r_.fail("spec.conflict", path + "." + key + " is not for kind: " + st.kind.value + " (it takes " + own + ")",
                  b[key]);
      }
      r_.expect_present(b, own, path);
      if (st.kind.value == "agent" || st.kind.value == "workflow" || st.kind.value == "lua") {
        if (st.kind.value == "agent") {
          st.agent = agent(b["agent"], path + ".agent");
        } else if (st.kind.value == "lua") {
          st.lua = r_.located_str(b["lua"], path + ".lua");
          st.lua_file = within_scope(st.lua.value, path + ".lua", b["lua"]);
          if (b["limits"]) st.lua_limits = lua_limits(b["limits"], path + ".limits");
          if (b["allow"]) st.allow = allow(b["allow"], path + ".allow");
        } else {
          st.workflow = r_.located_str(b["workflow"], path + ".workflow");
          st.workflow_spec = sub_workflow(b["workflow"], path + ".workflow");
        }
        if (b["inputs"]) {
          if (!b["inputs"].IsMap()) r_.fail("spec.wrong_type", path + ".inputs must map the step's inputs to templates", b["inputs"]);
          for (const auto& in : b["inputs"]) {
            std::string name = r_.str(in.first, path + ".inputs");
            check_name(name, "input", in.first);
            st.inputs.emplace_back(name, template_source(in.second, path + ".inputs." + name));
          }
        }
      } else if (st.kind.value == "loop") {
        if (at != "steps") r_.fail("spec.conflict", path + ": a loop inside a loop is not supported", b["kind"]);
        r_.expect_present(b, "until", path);
        r_.expect_present(b, "max_iterations", path);
        st.until = r_.located_raw(b["until"], path + ".until");
        st.max_iterations = static_cast<int>(r_.integer(b["max_iterations"], path + ".max_iterations", 1, 100));
        for (const char* key : {"for_each", "retry"})
          if (b[key]) r_.fail("spec.conflict", path + "." + key + " is not for kind: loop (give it to the steps inside)", b[key]);
        st.body = steps(b["steps"], path + ".steps");
      } else if (st.kind.value == "tool") {
        st.tool = r_.located_str(b["tool"], path + ".tool");
        st.text = b["input"] ? template_source(b["input"], path + ".input")
                             : TemplateSource{"", display_ + " (" + path + ".input)", dir_, st.loc, false, {}};
      } else {
        st.text = template_source(b[own], path + "." + own);
      }
      if (b["output_schema"]) {
        if (kind != "llm")
          r_.fail("spec.conflict", path + ".output_schema is for kind: llm (an agent step gives its agent one)",
                  b["output_schema"]);
        st.output_schema = json_schema(b["output_schema"], path + ".output_schema");
        st.output_schema_loc = r_.loc(b["output_schema"]);
      }
      if (b["llm"]) {
        if (kind != "llm" && kind != "agent")
          r_.fail("spec.conflict", path + ".llm is for kinds llm and agent (a step of kind " + kind + " calls no model)",
                  b["llm"]);
        st.llm = llm(b["llm"], path + ".llm");
      }
      if (b["when"]) st.when = r_.located_raw(b["when"], path + ".when");
      if (b["for_each"]) st.for_each = r_.located_raw(b["for_each"], path + ".for_each");
      if (b["concurrency"]) {
        if (!b["for_each"]) r_.fail("spec.conflict", path + ".concurrency is for a step with for_each", b["concurrency"]);
        st.concurrency = static_cast<int>(r_.integer(b["concurrency"], path + ".concurrency", 1, 64));
      }
      if (b["retry"]) {
        r_.expect_map(b["retry"], path + ".retry", keys::kRetry);
        r_.expect_present(b["retry"], "attempts", path + ".retry");
        st.attempts = static_cast<int>(r_.integer(b["retry"]["attempts"], path + ".retry.attempts", 1, 10));
        if (b["retry"]["backoff"]) st.backoff = r_.number(b["retry"]["backoff"], path + ".retry.backoff", 0);
        if (st.backoff > 60) r_.fail("spec.bad_value", path + ".retry.backoff is at most 60 seconds", b["retry"]["backoff"]);
      }
      if (b["on_error"]) st.continue_on_error = one_of(b["on_error"], path + ".on_error", {"fail", "continue"}).value == "continue";
      if (b["timeout"]) {
        st.timeout = r_.number(b["timeout"], path + ".timeout", 0);
        if (*st.timeout <= 0 || *st.timeout > 86400)
          r_.fail("spec.bad_value", path + ".timeout is seconds, more than 0 and at most 86400", b["timeout"]);
      }
      out.push_back(std::move(st));
    }
    return out;
  }

  // LangChain's hub prompt for tool-calling agents (hwchase17/openai-tools-agent): a system line, the chat history
  // (an optional placeholder there, here the memory's messages: none without a memory) and the input.
  std::vector<MessageSpec> default_tool_calling_messages(const SourceLoc& loc) {
    auto message = [&](const char* role, const char* text, const char* what) {
      return MessageSpec{{role, loc}, TemplateSource{text, what, dir_, loc, false, {}}, {}};
    };
    MessageSpec history;
    history.placeholder = {"history", loc};
    return {message("system", "You are a helpful assistant.", "built-in tool_calling prompt (system)"), history,
            message("user", "{{ input }}", "built-in tool_calling prompt (user)")};
  }

  // agent.memory: {kind: window, k: 2}, {kind: token_limit, max_tokens: N} or {kind: full}.
  MemorySpec memory(const YAML::Node& n, const std::string& at) {
    MemorySpec m;
    m.loc = r_.loc(n);
    r_.expect_map(n, at, keys::kMemory);
    r_.expect_present(n, "kind", at);
    m.kind = one_of(n["kind"], at + ".kind", {"none", "full", "window", "token_limit"});
    auto only_for = [&](const char* key, const char* kind) {
      if (n[key] && m.kind.value != kind)
        r_.fail("spec.conflict", at + "." + key + " is for kind: " + kind, n[key]);
    };
    only_for("k", "window");
    only_for("max_tokens", "token_limit");
    if (n["k"]) m.k = static_cast<int>(r_.integer(n["k"], at + ".k", 1, 100000));
    if (n["max_tokens"]) m.max_tokens = static_cast<long>(r_.integer(n["max_tokens"], at + ".max_tokens", 1, 1LL << 30));
    if (n["human_prefix"]) m.human_prefix = r_.str(n["human_prefix"], at + ".human_prefix");
    if (n["ai_prefix"]) m.ai_prefix = r_.str(n["ai_prefix"], at + ".ai_prefix");
    if (n["input_key"]) m.input_key = r_.located_str(n["input_key"], at + ".input_key");
    if (n["output_key"]) m.output_key = r_.str(n["output_key"], at + ".output_key");
    return m;
  }

  // A chat prompt: a list of {role, content}, each content a template (inline or {file: PATH}).
  std::vector<MessageSpec> messages(const YAML::Node& n, const std::string& path) {
    std::vector<MessageSpec> out;
    if (n.size() == 0) r_.fail("spec.wrong_type", path + " must list at least one message", n);
    for (size_t i = 0; i < n.size(); ++i) {
      std::string item = path + "[" + std::to_string(i) + "]";
      r_.expect_map(n[i], item, keys::kMessage);
      if (n[i]["placeholder"]) {
        for (const char* key : {"role", "content"})
          if (n[i][key])
            r_.fail("spec.conflict", item + " is a placeholder; it takes no " + key + " (the messages it stands for have theirs)",
                    n[i][key]);
        MessageSpec m;
        m.placeholder = r_.located_str(n[i]["placeholder"], item + ".placeholder");
        check_name(m.placeholder.value, "placeholder", n[i]["placeholder"]);
        out.push_back(std::move(m));
        continue;
      }
      r_.expect_present(n[i], "role", item);
      r_.expect_present(n[i], "content", item);
      out.push_back({one_of(n[i]["role"], item + ".role", {"system", "user", "assistant"}),
                     template_source(n[i]["content"], item + ".content")});
    }
    return out;
  }

  // A template is a string (inline) or {file: PATH} relative to the workflow file.
  TemplateSource template_source(const YAML::Node& n, const std::string& path) {
    TemplateSource t;
    if (!n) return t;
    t.loc = r_.loc(n);
    t.given = true;
    if (n.IsScalar()) {
      t.text = r_.located_raw(n, path).value;
      t.dir = dir_;
      t.origin = display_ + " (" + path + ")";
      t.key_path = path;
      return t;
    }
    r_.expect_map(n, path, keys::kTemplateFile);
    if (n["strict_undefined"]) t.overrides.strict_undefined = r_.boolean(n["strict_undefined"], path + ".strict_undefined");
    if (n["trim_blocks"]) t.overrides.trim_blocks = r_.boolean(n["trim_blocks"], path + ".trim_blocks");
    if (n["lstrip_blocks"]) t.overrides.lstrip_blocks = r_.boolean(n["lstrip_blocks"], path + ".lstrip_blocks");
    if (n["text"] && n["file"]) r_.fail("spec.conflict", path + " has both text and file; give one", n);
    if (n["text"]) {
      t.text = r_.located_raw(n["text"], path + ".text").value;
      t.origin = display_ + " (" + path + ")";
      t.dir = dir_;
      t.loc = r_.loc(n["text"]);
      t.key_path = path + ".text";
      return t;
    }
    if (!n["file"]) r_.fail("spec.missing_key", path + " needs file: PATH or text: TEMPLATE", n);
    std::string rel = r_.str(n["file"], path + ".file");
    std::filesystem::path file = within_scope(rel, path + ".file", n["file"]);
    try {
      t.text = read_file(file);
    } catch (const Error& e) {
      r_.fail("io.read_failed", path + ".file: " + e.message(), n["file"]);
    }
    size_t bad = utf8::find_invalid(t.text);
    if (bad != std::string::npos)
      r_.fail("spec.not_text", path + ".file: '" + rel + "' is not UTF-8 text (bad byte at offset " +
                                   std::to_string(bad) + ")", n["file"]);
    t.origin = (std::filesystem::path(display_).parent_path() / rel).lexically_normal().string();
    t.dir = file.parent_path();
    return t;
  }

  // Another workflow file, named as a step or a tool: loaded whole (its own errors at its own lines), with the same
  // search path; one that leads back to a file being loaded is refused with the chain.
  std::shared_ptr<const WorkflowSpec> sub_workflow(const YAML::Node& n, const std::string& path) {
    std::string rel = r_.str(n, path);
    std::filesystem::path file = within_scope(rel, path, n);
    std::filesystem::path key = std::filesystem::weakly_canonical(file);
    if (std::find(options_.including.begin(), options_.including.end(), key) != options_.including.end()) {
      std::vector<std::string> chain;
      for (const auto& f : options_.including) chain.push_back(f.filename().string());
      chain.push_back(key.filename().string());
      r_.fail("spec.cycle", path + ": '" + rel + "' includes itself: " + join(chain, " -> "), n);
    }
    auto too_deep = [&] {
      r_.fail("spec.too_deep", path + ": workflows nest deeper than " + std::to_string(limits::kWorkflowNesting) + " files", n);
    };
    LoadedWorkflows& loaded = *options_.loaded;
    if (auto it = loaded.by_path.find(key); it != loaded.by_path.end()) {
      if (options_.including.size() + it->second.height > limits::kWorkflowNesting) too_deep();
      return it->second.spec;
    }
    if (options_.including.size() >= limits::kWorkflowNesting) too_deep();
    if (loaded.by_path.size() >= limits::kWorkflowFiles)
      r_.fail("spec.too_large", path + ": the workflow and the files it names hold more than " +
                                    std::to_string(limits::kWorkflowFiles) + " workflow files", n);
    auto child = std::make_shared<const WorkflowSpec>(load_workflow(file, options_));
    loaded.by_path[key] = {child, 1 + height_below(*child, loaded)};
    return child;
  }

  // How deep the sub-workflows of `w` nest, each already loaded.
  static size_t height_below(const WorkflowSpec& w, const LoadedWorkflows& loaded) {
    size_t deepest = 0;
    auto see = [&](const std::shared_ptr<const WorkflowSpec>& sub) {
      if (!sub) return;
      for (const auto& [path, entry] : loaded.by_path)
        if (entry.spec == sub) deepest = std::max(deepest, entry.height);
    };
    for (const auto& t : w.tools) see(t.workflow_spec);
    for_each_step(w.steps, [&](const StepSpec& st) { see(st.workflow_spec); });
    return deepest;
  }

  // A file the workflow names, resolved against its folder, when the workflow may read it (core/file_scope.h).
  // A file the workflow names: beside it, or (a bare name) on the search path; an error lists where it looked.
  std::filesystem::path within_scope(const std::string& name, const std::string& path, const YAML::Node& at) {
    FileScope::Found found;
    try {
      found = scope_.find(dir_, name);
    } catch (const Error& e) {
      r_.fail(e.kind(), path + ": " + e.message(), at);
    }
    if (!found.exists) {
      // A bare name is looked for on the search path too: say how to add a folder to it.
      bool bare = !name.empty() && name[0] != '/' && name.rfind("./", 0) != 0 && name.rfind("../", 0) != 0;
      r_.fail("io.not_found",
              path + ": " + not_found_message(name, found.looked) +
                  (bare ? "; put the folder that holds it on ENGINE_PATH (folders separated by ':'), or name it by "
                          "its path from the workflow's folder (./lib/" + name + ")"
                        : ""),
              at);
    }
    return found.path;
  }

  Located<std::string> one_of(const YAML::Node& n, const std::string& path, const std::vector<std::string>& options) {
    auto v = r_.located_str(n, path);
    if (std::find(options.begin(), options.end(), v.value) == options.end())
      r_.fail("spec.bad_value", path + " must be one of " + quoted_list(options) + ", got '" + v.value + "'" +
                                    did_you_mean(v.value, options), n);
    return v;
  }

  static std::string quoted_list(const std::vector<std::string>& options) {
    std::vector<std::string> q;
    for (const auto& o : options) q.push_back("'" + o + "'");
    return join(q, ", ");
  }

  void check_name(const std::string& name, const char* what, const YAML::Node& at) {
    bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    if (!ok) r_.fail("spec.bad_name", std::string(what) + " name '" + name + "' must be letters, digits, _ or -", at);
  }

  void check_references(WorkflowSpec& w) {
    std::vector<std::string> names;
    for (const auto& t : w.tools) {
      if (t.mcp) {  // its tools' names: those it allows, or whatever it lists once started
        for (const auto& a : t.mcp->allow) names.push_back(t.mcp->prefix + a.value);
        continue;
      }
      if (std::find(names.begin(), names.end(), t.name.value) != names.end() && !t.name.value.empty())
        r_.fail_at("spec.duplicate_key", "two tools are named '" + t.name.value + "'", t.name.loc);
      if (!t.name.value.empty()) names.push_back(t.name.value);
    }
    // Lua tools may take their name from the script, and an MCP server without a tools list names its tools when it
    // is started; references are checked again once they are known.
    auto lua_named_later = std::count_if(w.tools.begin(), w.tools.end(), [](const ToolSpec& t) {
      return t.mcp ? t.mcp->allow.empty() : t.name.value.empty();
    });
    auto check = [&](const std::vector<Located<std::string>>& refs, const char* path) {
      for (const auto& ref : refs)
        if (std::find(names.begin(), names.end(), ref.value) == names.end() && lua_named_later == 0)
          r_.fail_at("spec.unknown_tool", "unknown tool '" + ref.value + "' in " + std::string(path) +
                                              did_you_mean(ref.value, names), ref.loc);
    };
    check(w.agent.tools, "agent.tools");
    check(w.agent.return_direct, "agent.return_direct");
    for_each_step(w.steps, [&](const StepSpec& step) {
      if (step.kind.value == "tool") check({step.tool}, (step.path + ".tool").c_str());
      if (step.agent) {
        check(step.agent->tools, (step.agent->path + ".tools").c_str());
        check(step.agent->return_direct, (step.agent->path + ".return_direct").c_str());
      }
    });
  }

  YamlReader r_;
  std::vector<std::string> seen_steps_;  // every step name of the file, loops' bodies included
  std::string display_;
  std::filesystem::path dir_;
  const FileScope& scope_;
  const LoadOptions& options_;
};

}  // namespace

WorkflowSpec parse_workflow(std::string text, std::string display_path, std::filesystem::path dir,
                            const LoadOptions& given) {
  LoadOptions options = given;
  if (!options.loaded) options.loaded = std::make_shared<LoadedWorkflows>();
  if (!options.secrets) options.secrets = SecretSet::with_environment_keys();
  // The keys every provider reads by default, as they are now: a given set may be older than the environment.
  for (const std::string& name : standard_key_variables())
    if (auto key = process_environment()(name)) options.secrets->add(*key);
  auto source = std::make_shared<SourceText>(display_path, std::move(text));
  YAML::Node root = parse_yaml_document(*source);
  FileScope scope({dir}, options.search_path);
  WorkflowSpec w = Loader(*source, display_path, dir, scope, options).load(root);
  w.scope = std::make_shared<const FileScope>(std::move(scope));
  w.display_path = std::move(display_path);
  w.dir = std::move(dir);
  w.source = std::move(source);
  w.secrets = options.secrets;
  return w;
}

const std::vector<std::string>& override_providers() { return kOverrideProviders; }

WorkflowSpec load_workflow(const std::filesystem::path& file, const LoadOptions& options) {
  SpecFile f = read_spec_file(file);  // named on the command line: may be a pipe
  LoadOptions inner = options;
  inner.including.push_back(std::filesystem::weakly_canonical(file));
  return parse_workflow(std::move(f.text), file.string(), f.dir, inner);
}

}  // namespace engine::spec
