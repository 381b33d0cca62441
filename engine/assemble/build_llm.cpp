#include "engine/assemble/build_llm.h"

#include <cstdlib>

#include "engine/assemble/spec_errors.h"
#include "engine/llm/openai_llm.h"
#include "engine/llm/scripted_llm.h"
#include "engine/parse/regex.h"
#include "engine/template/template.h"

namespace engine::assemble {
namespace {

// A rule: the regex searches the prompt; the reply template sees the named groups, `groups` (by number) and
// `prompt`.
llm::ScriptedRule make_rule(const spec::ScriptedRuleSpec& r, size_t index, const spec::WorkflowSpec& s) {
  std::string path = "llm.scripted.rules[" + std::to_string(index) + "]";
  std::optional<parse::Regex> regex;
  try {
    regex = parse::Regex::compile(r.match.value);
  } catch (const Error& e) {
    throw at_key(e, path + ".match", r.match.loc, s);
  }
  tmpl::Template reply = tmpl::Template::compile(r.reply.value, s.display_path + " (" + path + ".reply)");
  return llm::ScriptedRule{r.match.value, [regex = std::move(*regex), reply](const std::string& prompt)
                                              -> std::optional<std::string> {
                             auto m = regex.search(prompt);
                             if (!m) return std::nullopt;
                             Value ctx = Value::object();
                             Value groups = Value::array();
                             const auto& names = regex.group_names();
                             for (size_t i = 0; i < m->groups.size(); ++i) {
                               Value g = m->groups[i] ? Value(std::string(*m->groups[i])) : Value();
                               if (!names[i].empty()) ctx[names[i]] = g;
                               groups.push_back(std::move(g));
                             }
                             ctx["groups"] = std::move(groups);
                             ctx["prompt"] = prompt;
                             return reply.render(ctx);
                           }};
}

// The OpenAI-compatible presets: where each server listens and where its key comes from.
std::shared_ptr<const llm::LlmClient> build_openai_compatible(const spec::LlmSpec& l) {
  llm::OpenAiConfig c;
  c.provider = l.provider.value;
  c.model = l.model;
  c.base_url = l.base_url;
  c.api_key_env = l.api_key_env;
  if (c.provider == "openai") {
    const char* env_url = std::getenv("OPENAI_BASE_URL");  // as the official SDKs honour it
    if (c.base_url.empty()) c.base_url = env_url && *env_url ? env_url : "https://api.openai.com/v1";
    if (c.api_key_env.empty()) c.api_key_env = "OPENAI_API_KEY";
  } else if (c.provider == "ollama" && c.base_url.empty()) {
    c.base_url = "http://localhost:11434/v1";
  } else if (c.provider == "llamacpp" && c.base_url.empty()) {
    c.base_url = "http://localhost:8080/v1";
  }
  while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
  c.temperature = l.temperature;
  c.max_tokens = l.max_tokens;
  c.max_tokens_field = l.max_tokens_field;
  c.max_retries = l.max_retries;
  c.timeouts.total = std::chrono::milliseconds(static_cast<long long>(l.timeout_s * 1000));
  c.timeouts.connect = std::chrono::milliseconds(static_cast<long long>(l.connect_timeout_s * 1000));
  c.extra = l.extra;
  return std::make_shared<llm::OpenAiLlm>(std::move(c));
}

}  // namespace

std::shared_ptr<const llm::LlmClient> build_llm(const spec::WorkflowSpec& s) {
  const spec::LlmSpec& l = s.llm;
  if (l.provider.value != "scripted") return build_openai_compatible(l);
  llm::ScriptedScript script;
  for (const auto& r : l.replies) script.replies.push_back(r.value);
  for (size_t i = 0; i < l.rules.size(); ++i) script.rules.push_back(make_rule(l.rules[i], i, s));
  script.latency = std::chrono::milliseconds(l.latency_ms);
  return std::make_shared<llm::ScriptedLlm>(std::move(script));
}

}  // namespace engine::assemble
