#pragma once
// Turns a run's events into spans: the run (`invoke_workflow {name}`), each step (named for it), each agent
// (`invoke_agent {name}`), each model call (`chat {model}`, CLIENT) and each tool call (`execute_tool {name}`). A span
// starts at its start event and ends at its end event, on the times the events were made (Event::at); its parent is
// the innermost span still open at its path, or failing that at the path it sits under (`greet[3]` under `greet`,
// `billing/researcher` under `billing`, whose open tool call is the workflow-as-a-tool's parent). Each span is handed
// on once it ends; the spans of one top-level run share a trace id.
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/event.h"
#include "engine/trace/span.h"

namespace engine::trace {

// Where a run's trace joins: the caller's trace and span (a W3C traceparent), or none for a trace of its own.
struct TraceParent {
  std::string trace_id;  // 32 hex digits
  std::string span_id;   // 16 hex digits
};

class SpanBuilder : public EventSink {
 public:
  using Ended = std::function<void(Span&&)>;
  // `ended` is called with each span as it ends, on the thread of the event that ended it.
  explicit SpanBuilder(Ended ended, std::optional<TraceParent> parent = std::nullopt);
  void receive(const Event& event, const EventPlace& place) override;
  // Spans need the calls' and steps' fields, not the prompts.
  EventDetail detail() const override { return EventDetail::Summary; }
  // Ends what is still open (a run cut short), at `at`, as failed.
  void close_all(std::chrono::steady_clock::time_point at);

 private:
  struct Open {
    std::string key;  // what ends it: "run", "agent", "step", "llm:<call>", "tool:<call_id>"
    Span span;
  };
  using Stack = std::vector<Open>;

  void open(const std::string& run_id, const std::string& path, std::string key, Span span);
  void close(const std::string& run_id, const std::string& path, const std::string& key,
             std::chrono::steady_clock::time_point at, const std::function<void(Span&)>& finish);
  // The innermost span open at `path` or above it, for a new span's parent.
  const Span* parent_for(const std::string& run_id, const std::string& path) const;
  std::string new_id(size_t hex_digits);

  Ended ended_;
  std::optional<TraceParent> parent_;
  std::mutex mutex_;
  std::mt19937_64 random_;
  std::map<std::string, std::string> trace_of_run_;     // run id -> trace id
  std::map<std::pair<std::string, std::string>, Stack> open_;  // (run id, path) -> spans open there, outermost first
};

}  // namespace engine::trace
