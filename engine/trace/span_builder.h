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
#include <random>
#include <set>
#include <string_view>
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

class OtlpExporter;

class SpanBuilder : public EventSink {
 public:
  using Ended = std::function<void(Span&&)>;
  // `ended` is called with each span as it ends, on the thread of the event that ended it.
  explicit SpanBuilder(Ended ended, SpanContent content = {});
  // Each span, as it ends, queued on `exporter` (which must outlive the builder), with the exporter's content
  // settings: what a front end's runs and a served request's runs are watched by when spans are sent.
  explicit SpanBuilder(OtlpExporter& exporter);
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

  using Where = std::map<std::string, Stack, std::less<>>;

  void open(std::string_view run_id, std::string_view path, std::string key, Span span,
            const events::ChainStart* chain_start = nullptr);
  template <class Finish>
  void close(std::string_view run_id, std::string_view path, std::string_view key,
             std::chrono::steady_clock::time_point at, const Finish& finish);
  // The spans open at a run's path, or null; `place_` holds the key looked up (no allocation once it is grown).
  Stack* open_at(std::string_view run_id, std::string_view path);
  // The innermost span open at `path` or above it, for a new span's parent.
  const Span* parent_for(std::string_view run_id, std::string_view path);
  template <size_t N>
  void new_id(HexId<N>& id);

  Ended ended_;
  SpanContent content_;
  std::mutex mutex_;
  std::mt19937_64 random_;  // ids; seeded from the kernel once
  std::string place_;
  std::map<std::string, TraceId, std::less<>> trace_of_run_;  // run id -> trace id
  std::set<std::string, std::less<>> unsampled_;                 // runs whose caller asked for no spans
  Where open_;  // "run id \x1f path" -> spans open there, outermost first
};

}  // namespace engine::trace
