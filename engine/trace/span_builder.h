#pragma once
// Turns a run's events into spans: the run (`invoke_workflow {name}`), each step (named for it), each agent
// (`invoke_agent {name}`), each model call (`chat {model}`, CLIENT) and each tool call (`execute_tool {name}`). A span
// starts at its start event and ends at its end event, on the times the events were made (Event::at); its parent is
// the innermost span still open at its path, or failing that at the path it sits under (`greet[3]` under `greet`,
// `billing/researcher` under `billing`, whose open tool call is the workflow-as-a-tool's parent). Each span is handed
// on once it ends; the spans of one top-level run share a trace id: the one its chain_start names (a traced run's,
// core/trace_context.h, with the caller's span as the root's parent), or one of the builder's own. A model call's
// span has the id its llm_start names, the one its request sent as traceparent. A run whose chain_start says
// `sampled: false` makes no spans.
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/event.h"
#include "engine/trace/span.h"

namespace engine::trace {

// What spans carry besides the calls' and steps' fields.
struct SpanContent {
  // Model calls carry their messages (gen_ai.input.messages, gen_ai.output.messages) and tool calls their arguments
  // and results (gen_ai.tool.call.arguments, gen_ai.tool.call.result): the conventions' opt-in attributes, as JSON.
  bool enabled = false;
  size_t limit = 64 * 1024;  // bytes of each such attribute; longer ones are cut (at a UTF-8 boundary)
};

class SpanBuilder : public EventSink {
 public:
  using Ended = std::function<void(Span&&)>;
  // `ended` is called with each span as it ends, on the thread of the event that ended it.
  explicit SpanBuilder(Ended ended, SpanContent content = {});
  void receive(const Event& event, const EventPlace& place) override;
  // Spans need the calls' and steps' fields; the prompts only when they carry content.
  EventDetail detail() const override { return content_.enabled ? EventDetail::Full : EventDetail::Summary; }
  // Ends what is still open (a run cut short), at `at`, as failed.
  void close_all(std::chrono::steady_clock::time_point at);

 private:
  struct Open {
    std::string key;  // what ends it: "run", "agent", "step", "llm:<call>", "tool:<call_id>"
    Span span;
  };
  using Stack = std::vector<Open>;

  void open(const std::string& run_id, const std::string& path, std::string key, Span span,
            const Value* chain_start = nullptr);
  void close(const std::string& run_id, const std::string& path, const std::string& key,
             std::chrono::steady_clock::time_point at, const std::function<void(Span&)>& finish);
  // The innermost span open at `path` or above it, for a new span's parent.
  const Span* parent_for(const std::string& run_id, const std::string& path) const;

  Ended ended_;
  SpanContent content_;
  std::mutex mutex_;
  std::map<std::string, std::string> trace_of_run_;     // run id -> trace id
  std::set<std::string> unsampled_;                     // runs whose caller asked for no spans
  std::map<std::pair<std::string, std::string>, Stack> open_;  // (run id, path) -> spans open there, outermost first
};

}  // namespace engine::trace
