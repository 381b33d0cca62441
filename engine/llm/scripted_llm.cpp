#include "engine/llm/scripted_llm.h"

#include <atomic>
#include <thread>

#include "engine/core/utf8.h"
#include "engine/llm/run_state.h"

#include "engine/core/error.h"
#include "engine/llm/text_stream.h"

namespace engine::llm {
namespace {

// What rules match: the text prompt (not copied), or each message as "role: content" on its own line (an
// assistant's tool calls as "assistant calls NAME ARGUMENTS"), written out into `all`.
std::string_view prompt_text(const LlmRequest& r, std::string& all) {
  if (!r.prompt.empty() || r.messages.empty()) return r.prompt;
  for (const auto& m : r.messages) {
    all += m.role + ": " + m.content + "\n";
    for (const auto& c : m.tool_calls) all += m.role + " calls " + c.name + " " + c.arguments + "\n";
  }
  return all;
}

// What a rule reads in this request, or nothing when the last word is not its role's: a text prompt is the user's.
std::optional<std::string_view> rule_text(const ScriptedRule& rule, const LlmRequest& r, std::string_view prompt) {
  if (rule.reads == ScriptedRule::Reads::Prompt) return prompt;
  bool text_prompt = !r.prompt.empty() || r.messages.empty();
  if (rule.reads == ScriptedRule::Reads::UserMessage) {
    if (text_prompt) return prompt;
    if (r.messages.back().role == "user") return std::string_view(r.messages.back().content);
  } else if (!text_prompt && r.messages.back().role == "tool") {
    return std::string_view(r.messages.back().content);
  }
  return std::nullopt;
}

// Cuts to about max_tokens tokens without splitting a UTF-8 character.
bool cut_at_max_tokens(std::string& text, std::optional<int> max_tokens) {
  if (!max_tokens || estimate_tokens(text) <= *max_tokens) return false;
  text.resize(utf8::cut(text, static_cast<size_t>(*max_tokens) * 4));
  return true;
}

// A scripted answer streams a word at a time, so the console behaves as it does with a real model. A run that stops
// meanwhile stops its stream, as a real model's connection would be dropped.
void stream_words(const std::string& text, EventSink* events, const Cancel* cancel) {
  static const std::vector<std::string> kNoStop;  // the text is already cut
  TextStream stream(kNoStop, events);
  size_t start = 0;
  while (start < text.size()) {
    if (cancel && cancel->stopped()) throw_stopped(*cancel);
    size_t end = text.find_first_of(" \n", start);
    end = end == std::string::npos ? text.size() : end + 1;
    stream.add(std::string_view(text).substr(start, end - start));
    start = end;
  }
  stream.finish();
}

}  // namespace

namespace {

// What this client keeps for one run (RunState holds one object per client): the calls it has answered, for
// scripted.fail, and the replies it has given, since `replies` answer the run's calls in the order they come, so
// that the steps of a workflow (each an agent or a model call of its own) take them one after another.
struct ScriptedRun {
  std::atomic<int> calls{0};
  std::atomic<int> replies{0};
};

}  // namespace

LlmResponse ScriptedLlm::complete(const LlmRequest& request) const {
  if (script_.latency.count() > 0) sleep_or_throw(request.cancel, script_.latency);
  if (script_.fail_times > 0) {
    int call = request.run_state ? request.run_state->of<ScriptedRun>(this).calls++ : 0;
    if (call < script_.fail_times) {
      std::string message = "scripted: the server answered " + std::to_string(script_.fail_status) +
                            " (scripted failure " + std::to_string(call + 1) + " of " +
                            std::to_string(script_.fail_times) + ")";
      bool retryable = script_.fail_status == 429 || script_.fail_status >= 500;
      throw Error(retryable ? ErrorKind::LlmUnavailable : ErrorKind::LlmHttpError, message);
    }
  }
  std::string messages_text;
  std::string_view prompt = prompt_text(request, messages_text);
  ScriptedReply reply;
  if (!script_.replies.empty()) {
    int index = request.run_state ? request.run_state->of<ScriptedRun>(this).replies++ : request.call_index;
    if (index < 0 || static_cast<size_t>(index) >= script_.replies.size())
      throw Error(ErrorKind::LlmScriptExhausted, "the scripted provider has " + std::to_string(script_.replies.size()) +
                                              " replies, and call " + std::to_string(index + 1) +
                                              " asked for one more");
    reply = script_.replies[static_cast<size_t>(index)];
  } else {
    bool matched = false;
    for (const auto& rule : script_.rules) {
      auto text = rule_text(rule, request, prompt);
      if (!text) continue;
      if (auto r = rule.reply(*text)) {
        reply = std::move(*r);
        matched = true;
        break;
      }
    }
    if (!matched)
      throw Error(ErrorKind::LlmNoRule, "no scripted rule matches the prompt (" + std::to_string(script_.rules.size()) +
                                     " rules tried); add a catch-all rule with match: '(?s).*'");
  }
  LlmResponse r;
  r.text = std::move(reply.text);
  r.finish_reason = "stop";
  if (!cut_at_stop(r.text, request.stop) && cut_at_max_tokens(r.text, request.max_tokens)) r.finish_reason = "length";
  if (request.stream) stream_words(r.text, request.events, request.cancel);
  r.tool_calls = std::move(reply.tool_calls);
  for (size_t i = 0; i < r.tool_calls.size(); ++i)
    if (r.tool_calls[i].id.empty())
      r.tool_calls[i].id = "call_" + std::to_string(request.call_index + 1) + "_" + std::to_string(i + 1);
  if (!r.tool_calls.empty()) r.finish_reason = "tool_calls";
  r.usage.prompt_tokens = estimate_tokens(prompt);
  r.usage.completion_tokens = estimate_tokens(r.text);
  for (const auto& c : r.tool_calls) r.usage.completion_tokens += estimate_tokens(c.name) + estimate_tokens(c.arguments);
  r.usage_estimated = true;
  r.model = script_.model;
  return r;
}

}  // namespace engine::llm
