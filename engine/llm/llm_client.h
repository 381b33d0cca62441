#pragma once
// The seam between the agent loop and a model. Providers (scripted now; openai, anthropic, replay next) implement
// LlmClient; the loop only sees requests and responses. A client is shared by all runs of an executor, so
// complete() must be safe to call from several threads.
#include <optional>
#include <string>
#include <vector>

#include "engine/core/event.h"
#include "engine/core/value.h"

namespace engine::llm {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct LlmRequest {
  std::string prompt;                 // the rendered prompt (text completion, as the ReAct agent uses)
  std::vector<ChatMessage> messages;  // chat form, for providers and agents that use it
  std::vector<std::string> stop;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  int call_index = 0;  // which call of the run this is, from 0; lets stateless providers script a conversation
  EventSink* events = nullptr;  // where a provider reports retries; may be null
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

struct LlmResponse {
  std::string text;
  std::string finish_reason;  // "stop" (natural end or stop sequence) or "length" (max_tokens)
  TokenUsage usage;
  bool usage_estimated = false;  // true when the provider could only estimate token counts
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

// A rough token count (about four bytes a token) for providers that report none.
long estimate_tokens(std::string_view text);

}  // namespace engine::llm
