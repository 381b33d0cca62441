#include "engine/assemble/build_llm.h"

#include <algorithm>

#include <cstdlib>

#include "engine/assemble/match_context.h"
#include "engine/assemble/spec_errors.h"
#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/text.h"
#include "engine/llm/anthropic_llm.h"
#include "engine/llm/openai_llm.h"
#include "engine/llm/recording_llm.h"
#include "engine/llm/replay_llm.h"
#include "engine/llm/scripted_llm.h"
#include "engine/parse/regex.h"
#include "engine/template/template.h"

namespace engine::assemble {
namespace {

// A scripted reply's tool calls, as the provider returns them; arguments are checked to be JSON at build.
std::vector<llm::ToolCall> fixed_tool_calls(const std::vector<spec::ScriptedToolCallSpec>& calls, const std::string& path,
                                            const spec::WorkflowSpec& s) {
  std::vector<llm::ToolCall> out;
  for (size_t i = 0; i < calls.size(); ++i) {
    const auto& c = calls[i];
    if (parse_json(c.arguments.value).is_discarded())
      throw at_key(Error(ErrorKind::SpecBadValue, "the arguments are not JSON: " + quote_excerpt(c.arguments.value, 60)),
                   path + "[" + std::to_string(i) + "].arguments", c.arguments.loc, s);
    out.push_back({"", c.name.value, c.arguments.value});
  }
  return out;
}

// A rule's reply reads the match: its named groups, `groups` and `prompt` (the text the regex searched). Any other
// name is a group the regex does not define, which would render empty (or fail) only when the rule first matches.
void reads_only_groups(const tmpl::Template& t, const parse::Regex& regex, const std::string& what, const SourceLoc& loc,
                       const spec::WorkflowSpec& s) {
  std::vector<std::string> groups;
  for (const auto& name : regex.group_names())
    if (!name.empty()) groups.push_back(name);
  for (const auto& name : t.free_names()) {
    if (name == "groups" || name == "prompt" || std::find(groups.begin(), groups.end(), name) != groups.end()) continue;
    throw Error(ErrorKind::SpecUndefinedGroup,
                what + " uses '" + name + "', which its match regex does not define" + did_you_mean(name, groups) +
                    (groups.empty() ? " (it names no groups: write (?P<" + name + ">...))"
                                    : " (its groups: " + join(groups, ", ") + ")"),
                loc, quoted_line(s, loc));
  }
}

llm::ScriptedRule make_rule(const spec::ScriptedRuleSpec& r, size_t index, const std::string& at,
                            const spec::WorkflowSpec& s) {
  std::string path = at + ".scripted.rules[" + std::to_string(index) + "]";
  std::optional<parse::Regex> regex;
  try {
    regex = parse::Regex::compile(r.match.value);
  } catch (const Error& e) {
    throw at_key(e, path + "." + r.reads, r.match.loc, s);
  }
  tmpl::Template reply = tmpl::Template::compile(r.reply.value, s.display_path + " (" + path + ".reply)");
  struct CallTemplate {
    std::string name;
    tmpl::Template arguments;
  };
  std::vector<CallTemplate> calls;
  for (size_t i = 0; i < r.tool_calls.size(); ++i)
    calls.push_back({r.tool_calls[i].name.value,
                     tmpl::Template::compile(r.tool_calls[i].arguments.value,
                                             s.display_path + " (" + path + ".tool_calls[" + std::to_string(i) + "].arguments)")});
  reads_only_groups(reply, *regex, path + ".reply", r.reply.loc, s);
  for (size_t i = 0; i < calls.size(); ++i)
    reads_only_groups(calls[i].arguments, *regex, path + ".tool_calls[" + std::to_string(i) + "].arguments",
                      r.tool_calls[i].arguments.loc, s);
  auto reads = r.reads == "user"   ? llm::ScriptedRule::Reads::UserMessage
               : r.reads == "tool" ? llm::ScriptedRule::Reads::ToolResult
                                   : llm::ScriptedRule::Reads::Prompt;
  auto respond = [regex = std::move(*regex), reply, calls](std::string_view text) -> std::optional<llm::ScriptedReply> {
    auto m = regex.search(text);
    if (!m) return std::nullopt;
    Value ctx = match_context(*m, regex.group_names());
    ctx["prompt"] = text;
    llm::ScriptedReply out{reply.render(ctx), {}};
    for (const auto& c : calls) out.tool_calls.push_back({"", c.name, c.arguments.render(ctx)});
    return out;
  };
  return llm::ScriptedRule{r.match.value, std::move(respond), reads};
}

std::chrono::milliseconds seconds(double s) { return std::chrono::milliseconds(static_cast<long long>(s * 1000)); }

void http_timeouts_and_retry(const spec::LlmSpec& l, net::HttpTimeouts& timeouts, llm::RetryPolicy& retry,
                             const std::shared_ptr<llm::LlmGate>& gate) {
  timeouts.total = seconds(l.timeout_s);
  timeouts.connect = seconds(l.connect_timeout_s);
  timeouts.read = seconds(l.read_timeout_s);
  retry.max_retries = l.max_retries;
  retry.rate_gate = gate;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string without_trailing_slash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The OpenAI-compatible presets: where each server listens and where its key comes from.
std::shared_ptr<const llm::LlmClient> build_openai_compatible(const spec::LlmSpec& l, const BuildOptions& options) {
  llm::OpenAiConfig c;
  c.provider = l.provider.value;
  c.model = l.model;
  c.base_url = l.base_url;
  c.api_key_env = l.api_key_env;
  if (c.provider == "openai") {
    if (c.base_url.empty()) c.base_url = env_or("OPENAI_BASE_URL", "https://api.openai.com/v1");  // as the SDKs
    if (c.api_key_env.empty()) c.api_key_env = "OPENAI_API_KEY";
  } else if (c.provider == "ollama" && c.base_url.empty()) {
    c.base_url = "http://localhost:11434/v1";
  } else if (c.provider == "llamacpp" && c.base_url.empty()) {
    c.base_url = "http://localhost:8080/v1";
  }
  c.base_url = without_trailing_slash(c.base_url);
  c.endpoint = l.endpoint.value == "completions" ? llm::OpenAiEndpoint::Completions : llm::OpenAiEndpoint::Chat;
  c.temperature = l.temperature;
  c.max_tokens = l.max_tokens;
  c.max_tokens_field = l.max_tokens_field;
  c.seed = l.seed;
  c.response_format = l.response_format;
  c.parallel_tool_calls = l.parallel_tool_calls;
  http_timeouts_and_retry(l, c.timeouts, c.retry, options.llm_gate);
  c.io = options.io;
  c.extra = l.extra;
  return std::make_shared<llm::OpenAiLlm>(std::move(c));
}

std::shared_ptr<const llm::LlmClient> build_anthropic(const spec::LlmSpec& l, const BuildOptions& options) {
  llm::AnthropicConfig c;
  c.model = l.model;
  c.base_url = without_trailing_slash(l.base_url.empty() ? env_or("ANTHROPIC_BASE_URL", c.base_url) : l.base_url);
  if (!l.api_key_env.empty()) c.api_key_env = l.api_key_env;
  c.version = l.anthropic_version;
  c.temperature = l.temperature;
  if (l.max_tokens) c.max_tokens = *l.max_tokens;
  c.parallel_tool_calls = l.parallel_tool_calls;
  http_timeouts_and_retry(l, c.timeouts, c.retry, options.llm_gate);
  c.io = options.io;
  c.extra = l.extra;
  return std::make_shared<llm::AnthropicLlm>(std::move(c));
}

std::shared_ptr<const llm::LlmClient> build_provider(const spec::LlmSpec& l, const std::string& at,
                                                     const spec::WorkflowSpec& s, const BuildOptions& options) {
  const std::string& p = l.provider.value;
  if (p == "anthropic") return build_anthropic(l, options);
  if (p == "replay") {
    try {
      return std::make_shared<llm::ReplayLlm>(l.recording_file.string());
    } catch (const Error& e) {
      if (e.loc().line > 0) throw;
      throw at_key(e, at + ".recording", l.recording.loc, s);
    }
  }
  if (p != "scripted") return build_openai_compatible(l, options);
  llm::ScriptedScript script;
  script.model = l.model;
  for (size_t i = 0; i < l.replies.size(); ++i)
    script.replies.push_back({l.replies[i].text.value,
                              fixed_tool_calls(l.replies[i].tool_calls, at + ".scripted.replies[" + std::to_string(i) + "].tool_calls", s)});
  for (size_t i = 0; i < l.rules.size(); ++i) script.rules.push_back(make_rule(l.rules[i], i, at, s));
  script.latency = std::chrono::milliseconds(l.latency_ms);
  script.fail_status = l.fail_status;
  script.fail_times = l.fail_times;
  return std::make_shared<llm::ScriptedLlm>(std::move(script));
}

}  // namespace

std::shared_ptr<const llm::LlmClient> build_llm(const spec::WorkflowSpec& s, const BuildOptions& options) {
  std::shared_ptr<const llm::LlmClient> client = build_provider(s.llm, "llm", s, options);
  if (!options.record_file.empty())
    client = std::make_shared<llm::RecordingLlm>(std::move(client), options.record_file,
                                                    s.secrets ? s.secrets : SecretSet::with_environment_keys());
  if (options.llm_gate) client = std::make_shared<llm::GatedLlm>(std::move(client), options.llm_gate);
  return client;
}

std::shared_ptr<const llm::LlmClient> build_step_llm(const spec::LlmSpec& l, const std::string& at,
                                                     const spec::WorkflowSpec& s, const BuildOptions& options) {
  std::shared_ptr<const llm::LlmClient> client = build_provider(l, at, s, options);
  if (options.llm_gate) client = std::make_shared<llm::GatedLlm>(std::move(client), options.llm_gate);
  return client;
}

std::optional<spec::ModelPrice> model_price(const spec::LlmSpec& l) {
  for (const auto& [model, price] : l.prices)
    if (model == l.model) return price;
  return std::nullopt;
}

}  // namespace engine::assemble
