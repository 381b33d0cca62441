#include "engine/trace/run_recorder.h"

#include "engine/core/error.h"
#include "engine/core/event_json.h"
#include "engine/core/json_text.h"
#include "engine/trace/event_record.h"

namespace engine::trace {

RunRecorder::RunRecorder(store::RunWriter& writer, RunSource source, std::shared_ptr<const SecretSet> secrets)
    : writer_(writer), source_(std::move(source)), secrets_(std::move(secrets)) {}

void RunRecorder::receive(const Event& event, const EventPlace& place) {
  if (event.type() == EventType::LlmToken || event.type() == EventType::AnswerToken) return;
  std::unique_lock lock(mutex_);
  auto it = runs_.find(place.run_id);
  if (it == runs_.end()) {
    // A run starts with its chain_start at its own path; anything else is a run this recorder did not see begin.
    const auto* start = event.as<events::ChainStart>();
    if (!start || !place.step.empty()) return;
    Pending run;
    run.start = event.at;
    store::RunRecord& r = run.record;
    r.id = std::string(place.run_id);
    r.workflow = start->name;
    r.source = source_.file;
    r.command = source_.command;
    r.started_ms = clock_.unix_ms(event.at);
    if (start->inputs) r.inputs = *start->inputs;
    r.trace_id = start->trace_id;
    it = runs_.emplace(std::string(place.run_id), std::move(run)).first;
  }
  Pending& run = it->second;
  double t_ms = std::chrono::duration<double, std::milli>(event.at - run.start).count();
  run.record.events.push_back(event_line(event, place, t_ms));
  const auto* end = event.as<events::ChainEnd>();
  if (!end || !place.step.empty()) return;
  Pending done = std::move(run);
  runs_.erase(it);
  lock.unlock();  // the write is this run's alone; other runs' events go on meanwhile
  finish(done, *end);
}

void RunRecorder::finish(Pending& run, const events::ChainEnd& end) {
  store::RunRecord& r = run.record;
  r.output = end.output;
  r.stopped_reason = name_of(end.stopped_reason);
  r.elapsed_ms = end.elapsed_ms;
  if (end.error) r.error = error_value(*end.error);
  r.status = end.error ? "failed" : "ok";
  r.prompt_tokens = end.usage.prompt_tokens;
  r.completion_tokens = end.usage.completion_tokens;
  r.cost_usd = end.usage.cost_usd;
  // Masked here, whole, as it leaves for the store: every string of it, the events' JSON lines escaped forms and all.
  std::shared_ptr<const Redactor> masks = secrets_->masks();
  redact_value(r.inputs, *masks);
  redact_value(r.output, *masks);
  redact_value(r.error, *masks);
  for (std::string& line : r.events) line = masks->redact(line);
  // Written by the store's writer with the runs that end meanwhile; the run goes on (this may be under a sink's lock,
  // where it must not wait). What reads the store next flushes the writer first.
  writer_.submit(std::move(r));
}

std::string RunRecorder::failure() const { return writer_.failure(); }

}  // namespace engine::trace
