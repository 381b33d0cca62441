#pragma once
// What watches a front end's runs besides its console (docs/observability.md): the --trace file, the spans sent to
// an OpenTelemetry collector (--otlp, OTEL_EXPORTER_OTLP_*), the run store. Each masks where its bytes leave, by the
// front end's secret set. Written once for every command that runs workflows (run, chat, batch) and for `engine
// runs` playing stored runs to a collector; a front end adds its own sink (the console) beside them.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/agent/run_result.h"
#include "engine/app/run_recording.h"
#include "engine/app/trace_file.h"
#include "engine/core/event.h"
#include "engine/core/secret_set.h"
#include "engine/core/trace_context.h"
#include "engine/trace/otlp_exporter.h"
#include "engine/trace/span_builder.h"
#include "engine/workflow/executor.h"

namespace engine::app {

struct ObserverOptions {
  std::string trace_file;        // --trace FILE; empty: none
  bool append_trace = false;     // a batch appends to it; a run replaces it
  std::string otlp;              // --otlp URL; empty: the OTEL_EXPORTER_OTLP_* variables name the collector, if any
  std::optional<StoreOptions> store;  // none: the runs are not recorded (they were, when `engine runs` plays them)
  trace::RunSource source;            // what the store records the runs as started by
  std::shared_ptr<SecretSet> secrets;  // the front end's; the collector's headers join it
};

class RunObservers {
 public:
  // Throws Error "io.write_failed" (the trace file) and "usage" (the collector's settings) before any run starts.
  explicit RunObservers(const ObserverOptions& options);
  RunObservers(const RunObservers&) = delete;
  RunObservers& operator=(const RunObservers&) = delete;

  // Another sink for the runs' events (the console), which must outlive the runs.
  void add(EventSink* sink) { events_.add(sink); }
  // Every observer at once; with none, no run builds an event.
  EventSink& sink() { return events_; }
  // Whether the runs' spans are sent: each run is then a trace of its own (run_observed).
  bool traced() const { return builder_.has_value(); }
  // The run store and its writer, where runs are journaled (app/durable_runs.h); null when runs are not recorded.
  store::RunStore* store() { return recording_ ? recording_->store() : nullptr; }
  store::RunWriter* store_writer() { return recording_ ? recording_->writer() : nullptr; }
  // Until the runs that ended are in the run store (a fiber waits without its thread; hold no lock): before what
  // must not be ahead of them (a batch's results line).
  void wait_recorded();

  // After the runs: open spans ended and what is queued sent, within the exporter's bound; the trace file written
  // to the end (throws Error "io.write_failed" when it was not). What the collector did not take, and why a run was
  // not recorded, for the front end to show.
  struct Ended {
    trace::OtlpExporter::Counts spans;
    std::string not_recorded;
  };
  Ended finish();

 private:
  std::optional<TraceFile> trace_;
  std::optional<trace::OtlpExporter> exporter_;
  std::optional<trace::SpanBuilder> builder_;
  std::optional<RunRecording> recording_;
  EventFanout events_;
};

// A run with its observers: a trace of its own when spans are sent (its model requests carry it), its events to
// every observer. `play` runs it (an executor's run, a chat turn) with the sink and options given.
using PlayRun = std::function<agent::RunResult(EventSink& events, const agent::RunOptions& options)>;
agent::RunResult run_observed(RunObservers& observers, agent::RunOptions options, const PlayRun& play);
// The same for a plain run of `executor` on `inputs`.
agent::RunResult run_observed(RunObservers& observers, const workflow::Executor& executor, const Value& inputs,
                              agent::RunOptions options);

}  // namespace engine::app
