// An llm block: the provider, the model and how to reach it, and the scripted provider's script.
#include <algorithm>

#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/scripted_replies.h"
#include "engine/spec/section_readers.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
const KeyList kLlm = {"provider",        "model",        "temperature",      "max_tokens",  "scripted",
                      "chat_template",   "bos_token",    "eos_token",        "base_url",    "api_key_env",
                      "max_retries",     "timeout",      "connect_timeout",  "read_timeout", "max_tokens_field",
                      "extra",           "endpoint",     "seed",             "response_format", "tool_choice",
                      "parallel_tool_calls", "anthropic_version", "recording", "prices",      "max_concurrent_calls",
                      "chat_template_tools", "add_generation_prompt", "chat_template_kwargs"};
const KeyList kPrice = {"prompt", "completion"};
const KeyList kScripted = {"replies", "rules", "latency_ms", "fail"};
const KeyList kScriptedFail = {"status", "times"};
const KeyList kScriptedRule = {"match", "user", "tool", "reply", "tool_calls"};

}  // namespace keys

namespace {

// `json_object` or `text` as shorthand for {type: ...}, or the whole object as the API takes it.
Value response_format(SectionReader& in, const YAML::Node& n, const std::string& at) {
  if (n.IsScalar()) {
    std::string type = in.one_of(n, at + ".response_format", {"text", "json_object"}).value;
    return Value{{"type", type}};
  }
  if (!n.IsMap()) in.r.fail(ErrorKind::SpecWrongType, at + ".response_format must be json_object, text, or a mapping", n);
  Value v = in.r.value(n, at + ".response_format");
  if (!v.contains("type") || !v["type"].is_string())
    in.r.fail(ErrorKind::SpecMissingKey, at + ".response_format needs a type (json_object, json_schema or text)", n);
  // OpenAI's {type: json_schema, json_schema: {name, schema, strict}}: the schema is checked as any other, and the
  // replies are validated against it (assemble/).
  if (v["type"] == "json_schema") {
    const YAML::Node& spec = n["json_schema"];
    if (!spec || !spec.IsMap() || !spec["schema"])
      in.r.fail(ErrorKind::SpecMissingKey, at + ".response_format of type json_schema needs json_schema: {name, schema}", n);
    in.json_schema(spec["schema"], at + ".response_format.json_schema.schema");
  }
  return v;
}

// model -> {prompt, completion}, USD per million tokens.
std::vector<std::pair<std::string, ModelPrice>> prices(SectionReader& in, const YAML::Node& n, const std::string& at) {
  std::vector<std::pair<std::string, ModelPrice>> out;
  if (!n.IsMap()) in.r.fail(ErrorKind::SpecWrongType, at + ".prices must map model names to {prompt, completion}", n);
  for (const auto& kv : n) {
    std::string model = in.r.str(kv.first, at + ".prices");
    std::string path = at + ".prices." + model;
    in.r.expect_map(kv.second, path, keys::kPrice);
    in.r.expect_present(kv.second, "prompt", path);
    in.r.expect_present(kv.second, "completion", path);
    out.push_back({model, {in.r.number(kv.second["prompt"], path + ".prompt", 0),
                           in.r.number(kv.second["completion"], path + ".completion", 0)}});
  }
  return out;
}

ScriptedRuleSpec scripted_rule(SectionReader& in, const YAML::Node& rule, const std::string& path) {
  in.r.expect_map(rule, path, keys::kScriptedRule);
  std::vector<std::string> given;
  for (const char* key : {"match", "user", "tool"})
    if (rule[key]) given.push_back(key);
  if (given.empty())
    in.r.fail(ErrorKind::SpecMissingKey,
              path + " needs match: (a regex on the whole prompt), user: (on the user's last message) or tool: "
                     "(on a tool's result)",
              rule);
  if (given.size() > 1)
    in.r.fail(ErrorKind::SpecConflict, path + " has " + given[0] + " and " + given[1] + "; give one of them", rule);
  if (!rule["tool_calls"]) in.r.expect_present(rule, "reply", path);
  ScriptedRuleSpec out{in.r.located_raw(rule[given[0]], path + "." + given[0]), given[0], {}, {}};
  if (rule["reply"]) out.reply = in.r.located_raw(rule["reply"], path + ".reply");
  if (rule["tool_calls"]) out.tool_calls = read_scripted_tool_calls(in.r, rule["tool_calls"], path + ".tool_calls", true);
  return out;
}

// The scripted provider's script: replies in order, or rules matched on the prompt; a failure to rehearse.
void scripted(SectionReader& in, const YAML::Node& s, const std::string& at, LlmSpec& l) {
  in.r.expect_map(s, at, keys::kScripted);
  in.key(s, "replies", [&](const YAML::Node& v) { l.replies = read_scripted_replies(in.r, v, at + ".replies"); });
  in.key(s, "latency_ms", [&](const YAML::Node& v) {
    l.latency_ms = static_cast<int>(in.r.integer(v, at + ".latency_ms", 0, 600000));
  });
  in.key(s, "fail", [&](const YAML::Node& f) {
    in.r.expect_map(f, at + ".fail", keys::kScriptedFail);
    if (!f["status"]) in.r.fail(ErrorKind::SpecMissingKey, at + ".fail needs status: an HTTP status, 400 to 599", f);
    l.fail_status = static_cast<int>(in.r.integer(f["status"], at + ".fail.status", 400, 599));
    l.fail_times = f["times"] ? static_cast<int>(in.r.integer(f["times"], at + ".fail.times", 1, 1000)) : 1;
  });
  in.key(s, "rules", [&](const YAML::Node& rules) {
    if (!rules.IsSequence()) in.r.fail(ErrorKind::SpecWrongType, at + ".rules must be a list", rules);
    for (size_t i = 0; i < rules.size(); ++i)
      in.entry([&] { l.rules.push_back(scripted_rule(in, rules[i], at + ".rules[" + std::to_string(i) + "]")); });
  });
  if (!l.replies.empty() && !l.rules.empty())
    in.r.fail(ErrorKind::SpecConflict, at + " has both replies and rules; give one of them", s);
}

const std::vector<std::string> kOverrideProviders = {"openai", "ollama", "llamacpp", "anthropic", "replay"};
const std::vector<std::string> kProviders = [] {
  std::vector<std::string> all = {"scripted"};
  all.insert(all.end(), kOverrideProviders.begin(), kOverrideProviders.end());
  return all;
}();

}  // namespace

const std::vector<std::string>& override_providers() { return kOverrideProviders; }

LlmSpec read_llm(SectionReader& in, const YAML::Node& n, const std::string& at) {
  LlmSpec l;
  l.loc = in.r.loc(n);
  YamlReader& r = in.r;
  r.expect_map(n, at, keys::kLlm);
  size_t problems = in.problems();
  in.key(n, "provider", [&](const YAML::Node& v) {
    l.provider = r.located_str(v, at + ".provider");
    if (std::find(kProviders.begin(), kProviders.end(), l.provider.value) == kProviders.end())
      r.fail(ErrorKind::SpecBadValue, "unknown llm.provider '" + l.provider.value + "'" + did_you_mean(l.provider.value, kProviders), v);
  });
  in.key(n, "model", [&](const YAML::Node& v) { l.model = r.str(v, at + ".model"); });
  in.entry([&] { l.chat_template = in.template_source(n["chat_template"], at + ".chat_template"); });
  in.key(n, "base_url", [&](const YAML::Node& v) { l.base_url = r.str(v, at + ".base_url"); });
  in.key(n, "api_key_env", [&](const YAML::Node& v) {
    l.api_key_env = r.str(v, at + ".api_key_env");
    if (auto key = process_environment()(l.api_key_env)) in.options.secrets->add(*key);
  });
  in.key(n, "max_retries", [&](const YAML::Node& v) { l.max_retries = static_cast<int>(r.integer(v, at + ".max_retries", 0, 20)); });
  in.key(n, "timeout", [&](const YAML::Node& v) { l.timeout_s = r.number(v, at + ".timeout", 0.001, limits::kSeconds); });
  in.key(n, "connect_timeout", [&](const YAML::Node& v) {
    l.connect_timeout_s = r.number(v, at + ".connect_timeout", 0.001, limits::kSeconds);
  });
  in.key(n, "read_timeout", [&](const YAML::Node& v) { l.read_timeout_s = r.number(v, at + ".read_timeout", 0.001, limits::kSeconds); });
  in.key(n, "endpoint", [&](const YAML::Node& v) { l.endpoint = in.one_of(v, at + ".endpoint", {"chat", "completions"}); });
  in.key(n, "seed", [&](const YAML::Node& v) { l.seed = r.integer(v, at + ".seed", -(1LL << 53), 1LL << 53); });
  in.key(n, "response_format", [&](const YAML::Node& v) {
    l.response_format = response_format(in, v, at);
    l.response_format_loc = r.loc(v);
  });
  in.key(n, "tool_choice", [&](const YAML::Node& v) { l.tool_choice = r.located_str(v, at + ".tool_choice"); });
  in.key(n, "parallel_tool_calls", [&](const YAML::Node& v) { l.parallel_tool_calls = r.boolean(v, at + ".parallel_tool_calls"); });
  in.key(n, "anthropic_version", [&](const YAML::Node& v) { l.anthropic_version = r.str(v, at + ".anthropic_version"); });
  in.key(n, "recording", [&](const YAML::Node& v) {
    l.recording = r.located_str(v, at + ".recording");
    // The workflow's own data, not a shared file: never looked for on the search path; one not there yet is
    // reported when the run reads it.
    try {
      l.recording_file = in.scope.resolve(in.dir, l.recording.value);
    } catch (const Error& e) {
      r.fail(e.kind(), at + ".recording: " + e.message(), v);
    }
  });
  in.key(n, "prices", [&](const YAML::Node& v) { l.prices = prices(in, v, at); });
  in.key(n, "max_concurrent_calls", [&](const YAML::Node& v) {
    l.max_concurrent_calls = static_cast<int>(r.integer(v, at + ".max_concurrent_calls", 1, 256));
  });
  in.key(n, "max_tokens_field", [&](const YAML::Node& v) {
    l.max_tokens_field = in.one_of(v, at + ".max_tokens_field", {"max_tokens", "max_completion_tokens"}).value;
  });
  in.key(n, "extra", [&](const YAML::Node& v) {
    if (!v.IsMap()) r.fail(ErrorKind::SpecWrongType, at + ".extra must be a mapping of request keys", v);
    l.extra = r.value(v, at + ".extra");
  });
  in.key(n, "chat_template_tools", [&](const YAML::Node& t) {
    l.chat_template_tools_loc = r.loc(t);
    if (t.IsScalar() && r.str(t, at + ".chat_template_tools") == "all") l.chat_template_all_tools = true;
    else if (t.IsSequence()) l.chat_template_tools = r.str_list(t, at + ".chat_template_tools");
    else r.fail(ErrorKind::SpecWrongType, at + ".chat_template_tools must be `all` or a list of the agent's tools", t);
  });
  in.key(n, "add_generation_prompt", [&](const YAML::Node& v) {
    l.add_generation_prompt = r.boolean(v, at + ".add_generation_prompt");
  });
  in.key(n, "chat_template_kwargs", [&](const YAML::Node& v) {
    if (!v.IsMap()) r.fail(ErrorKind::SpecWrongType, at + ".chat_template_kwargs must be a mapping of template variables", v);
    Value kwargs = r.value(v, at + ".chat_template_kwargs");
    for (std::string own : {"messages", "tools", "add_generation_prompt", "bos_token", "eos_token"})
      if (kwargs.contains(own))
        r.fail(ErrorKind::SpecConflict, at + ".chat_template_kwargs." + own + " is given by the engine (" +
                                    (own == "messages" ? "from the prompt"
                                                       : "llm." + (own == "tools" ? "chat_template_tools" : own)) +
                                    ")",
               v[own]);
    l.chat_template_kwargs = std::move(kwargs);
  });
  in.key(n, "bos_token", [&](const YAML::Node& v) { l.bos_token = r.str(v, at + ".bos_token"); });
  in.key(n, "eos_token", [&](const YAML::Node& v) { l.eos_token = r.str(v, at + ".eos_token"); });
  in.key(n, "temperature", [&](const YAML::Node& v) { l.temperature = r.number(v, at + ".temperature", 0); });
  in.key(n, "max_tokens", [&](const YAML::Node& v) { l.max_tokens = static_cast<int>(r.integer(v, at + ".max_tokens", 1, 1 << 24)); });
  in.key(n, "scripted", [&](const YAML::Node& v) { scripted(in, v, at + ".scripted", l); });
  // What a provider needs, once every key read well (a validation has reported the key that did not).
  if (in.problems() != problems) return l;
  if (l.provider.value == "scripted" && l.replies.empty() && l.rules.empty())
    r.fail(ErrorKind::SpecMissingKey, "the scripted provider needs " + at + ".scripted.replies or " + at + ".scripted.rules", n);
  if (l.provider.value == "replay" && l.recording.value.empty())
    r.fail(ErrorKind::SpecMissingKey, "the replay provider needs " + at + ".recording: FILE (a file written by --record)", n);
  return l;
}

}  // namespace engine::spec
