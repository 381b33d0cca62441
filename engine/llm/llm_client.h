#pragma once
// The seam between the agent loop and a model. Providers (scripted, openai, anthropic, replay) implement LlmClient;
// the loop only sees requests and responses. A client is shared by all runs of an executor, so complete() must be
// safe to call from several threads.
#include <optional>
#include <string>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/event.h"
#include "engine/core/value.h"
#include "engine/llm/run_state.h"

namespace engine::llm {

// A function call the model asked for. `arguments` is the JSON text as the model wrote it (it may be invalid JSON;
// the agent decides what to do with that).
struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant", "tool"
  std::string content;
  std::vector<ToolCall> tool_calls;  // an assistant's calls
  std::string tool_call_id;          // a "tool" message answers this call
};

// A function the model may call: its JSON-schema parameters as OpenAI and Anthropic take them.
struct ToolSchema {
  std::string name;
  std::string description;
  Value parameters = Value::object();
};

struct LlmRequest {
  std::string prompt;                 // the rendered prompt (text completion, as the ReAct agent uses)
  std::vector<ChatMessage> messages;  // chat form, for providers and agents that use it
  std::vector<std::string> stop;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::vector<ToolSchema> tools;
  std::string tool_choice;  // "" (the server's default), "auto", "none", "required" ("any"), or a tool's name
  int call_index = 0;  // which call of the run this is, from 0; lets stateless providers script a conversation
  bool stream = false;  // report the text as it arrives, as "llm_token" events
  EventSink* events = nullptr;  // where a provider reports retries and tokens; may be null
  // The run's: a provider stops waiting (for the server, a retry, a scripted latency) when it stops, and throws as
  // throw_stopped. May be null.
  const Cancel* cancel = nullptr;
  // The run's: where a provider keeps what must not outlive the run (a replay's served answers). May be null: the
  // call is then answered as a run's first would be.
  RunState* run_state = nullptr;
  // A W3C traceparent naming the call's span, when the run is traced: HTTP providers send it as a header, so the
  // server's own tracing joins the run's trace. Not part of what a recording matches on.
  std::string traceparent;
};

struct TokenUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  long total() const { return prompt_tokens + completion_tokens; }
  TokenUsage& operator+=(const TokenUsage& o) {
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    return *this;
  }
};

// A model's price in USD per million tokens, as providers publish it.
struct Price {
  double prompt = 0;
  double completion = 0;
  double cost(const TokenUsage& u) const {
    return (static_cast<double>(u.prompt_tokens) * prompt + static_cast<double>(u.completion_tokens) * completion) / 1e6;
  }
};

struct LlmResponse {
  std::string text;
  // "stop" (natural end or stop sequence), "length" (max_tokens) or "tool_calls"
  std::string finish_reason;
  std::vector<ToolCall> tool_calls;
  TokenUsage usage;
  bool usage_estimated = false;  // true when the provider could only estimate token counts
  std::string model;  // the model that answered, as the server names it (may differ from the one asked for)
  std::string id;     // the server's id for the answer ("chatcmpl-...", "msg_..."), when it gives one
};

class LlmClient {
 public:
  virtual ~LlmClient() = default;
  // Throws Error ("llm.*") when no response can be had.
  virtual LlmResponse complete(const LlmRequest& request) const = 0;
  virtual std::string describe() const = 0;  // "scripted", "openai:gpt-4o-mini", ... for traces
};

// Cuts `text` at the earliest stop sequence, which is not returned, as OpenAI-compatible servers do.
// Returns whether a stop sequence was found.
bool cut_at_stop(std::string& text, const std::vector<std::string>& stop);

// A token count as a server reported it: a non-negative integer up to 10^15, else 0. A count of 2^64-1 must not
// read as -1 (a budget that never trips) nor overflow the run's sums.
long token_count(const Value& v);

// A rough token count (about four bytes a token) for providers that report none.
long estimate_tokens(std::string_view text);

// The request as JSON: what replay matches on and what a recording holds. Leaves out what does not change the
// answer (call_index, stream, events).
Value request_to_json(const LlmRequest& request);
Value response_to_json(const LlmResponse& response);
Value tool_calls_to_json(const std::vector<ToolCall>& calls);  // [{id, name, arguments}]
LlmResponse response_from_json(const Value& v);  // throws Error "llm.bad_recording"

}  // namespace engine::llm
