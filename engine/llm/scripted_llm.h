#pragma once
// The embedded provider that needs no network: it answers from a list of replies (one per call, in order) or from
// rules (the first rule whose matcher accepts the prompt renders the reply). It honours stop sequences and
// max_tokens exactly as a server would, so a workflow behaves the same when pointed at a real model.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/llm/llm_client.h"

namespace engine::llm {

// What the model says: text, and the tools it calls (ids are given when the reply has none).
struct ScriptedReply {
  ScriptedReply(std::string text = {}, std::vector<ToolCall> tool_calls = {})  // NOLINT: a reply is usually text
      : text(std::move(text)), tool_calls(std::move(tool_calls)) {}
  ScriptedReply(const char* text) : text(text) {}  // NOLINT
  std::string text;
  std::vector<ToolCall> tool_calls;
};

struct ScriptedRule {
  // What a rule reads: the whole prompt; or, while the user has the last word, the user's message (a text prompt
  // is one); or, while a tool has it, the tool's result. The last two need no knowledge of how prompts render.
  enum class Reads { Prompt, UserMessage, ToolResult };

  std::string label;  // for errors and traces: the rule's pattern
  // Returns the reply when the rule applies to this text. Built by assemble/ from a regex and templates.
  std::function<std::optional<ScriptedReply>(std::string_view text)> reply;
  Reads reads = Reads::Prompt;
};

struct ScriptedScript {
  std::vector<ScriptedReply> replies;  // used when non-empty
  std::vector<ScriptedRule> rules;
  std::chrono::milliseconds latency{0};  // simulated time to answer, for time-limit tests and demos
  // The first `fail_times` calls of each run fail as a server answering `fail_status` would, once the provider's
  // retries are spent: 429 and 5xx as "llm.unavailable", other 4xx as "llm.http_error". Retries of a step
  // (`retry:`) and failure paths are tested offline with it.
  int fail_status = 0;
  int fail_times = 0;
  std::string model;  // the workflow's `model:`, named in traces and spans as a real model's would be
};

class ScriptedLlm : public LlmClient {
 public:
  explicit ScriptedLlm(ScriptedScript script) : script_(std::move(script)) {}
  LlmResponse complete(const LlmRequest& request) const override;
  std::string describe() const override { return script_.model.empty() ? "scripted" : "scripted:" + script_.model; }

 private:
  ScriptedScript script_;
};

}  // namespace engine::llm
