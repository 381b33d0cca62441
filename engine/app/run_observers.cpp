#include "engine/app/run_observers.h"

#include <cstdlib>

namespace engine::app {

RunObservers::RunObservers(const ObserverOptions& o) {
  if (!o.trace_file.empty()) {
    trace_.emplace(o.trace_file, o.append_trace ? std::ios::app : std::ios::trunc, o.secrets);
    events_.add(&trace_->sink());
  }
  std::optional<trace::OtlpSettings> settings =
      trace::otlp_settings(o.otlp, [](const char* name) { return std::getenv(name); }, o.secrets);
  if (settings) {
    exporter_.emplace(std::move(*settings));
    builder_.emplace(*exporter_);
    events_.add(&*builder_);
  }
  if (o.store) {
    recording_.emplace(*o.store, o.source, o.secrets);
    if (EventSink* store = recording_->sink()) events_.add(store);
  }
}

void RunObservers::wait_recorded() {
  if (recording_) recording_->flush();
}

RunObservers::Ended RunObservers::finish() {
  Ended ended;
  if (exporter_) {
    builder_->close_all(std::chrono::steady_clock::now());  // a run cut short still shows what it did
    exporter_->flush(std::chrono::seconds(2));
    ended.spans = exporter_->counts();
  }
  if (recording_) {
    recording_->flush();
    ended.not_recorded = recording_->problem();
  }
  if (trace_) trace_->finish();
  return ended;
}

agent::RunResult run_observed(RunObservers& observers, agent::RunOptions options, const PlayRun& play) {
  std::optional<TraceContext> trace;
  if (observers.traced() && !options.trace) {
    trace = TraceContext::new_trace();
    options.trace = &*trace;
  }
  return play(observers.sink(), options);
}

agent::RunResult run_observed(RunObservers& observers, const workflow::Executor& executor, const Value& inputs,
                              agent::RunOptions options) {
  return run_observed(observers, std::move(options), [&](EventSink& events, const agent::RunOptions& o) {
    return executor.run(inputs, events, o);
  });
}

}  // namespace engine::app
