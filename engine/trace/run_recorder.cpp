#include "engine/trace/run_recorder.h"

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/trace/event_record.h"

namespace engine::trace {

RunRecorder::RunRecorder(store::RunWriter& writer, RunSource source, std::shared_ptr<const SecretSet> secrets)
    : writer_(writer), source_(std::move(source)), secrets_(std::move(secrets)) {}

void RunRecorder::receive(const Event& event, const EventPlace& place) {
  if (event.type == EventType::LlmToken || event.type == EventType::AnswerToken) return;
  std::unique_lock lock(mutex_);
  auto it = runs_.find(place.run_id);
  if (it == runs_.end()) {
    // A run starts with its chain_start at its own path; anything else is a run this recorder did not see begin.
    if (event.type != EventType::ChainStart || !place.step.empty()) return;
    Pending run;
    run.start = event.at;
    store::RunRecord& r = run.record;
    r.id = std::string(place.run_id);
    r.workflow = event.data.value("name", "");
    r.source = source_.file;
    r.command = source_.command;
    r.started_ms = clock_.unix_ms(event.at);
    if (auto inputs = event.data.find("inputs"); inputs != event.data.end()) r.inputs = *inputs;
    r.trace_id = event.data.value("trace_id", "");
    it = runs_.emplace(std::string(place.run_id), std::move(run)).first;
  }
  Pending& run = it->second;
  double t_ms = std::chrono::duration<double, std::milli>(event.at - run.start).count();
  run.record.events.push_back(event_line(event, place, t_ms));
  if (event.type != EventType::ChainEnd || !place.step.empty()) return;
  Pending done = std::move(run);
  runs_.erase(it);
  lock.unlock();  // the write is this run's alone; other runs' events go on meanwhile
  finish(done, event.data);
}

void RunRecorder::finish(Pending& run, const Value& end) {
  store::RunRecord& r = run.record;
  r.output = end.value("output", Value());
  r.stopped_reason = end.value("stopped_reason", "");
  r.elapsed_ms = end.value("elapsed_ms", 0.0);
  if (auto error = end.find("error"); error != end.end()) r.error = *error;
  r.status = r.error.is_null() ? "ok" : "failed";
  if (auto usage = end.find("usage"); usage != end.end() && usage->is_object()) {
    r.prompt_tokens = usage->value("prompt_tokens", int64_t{0});
    r.completion_tokens = usage->value("completion_tokens", int64_t{0});
    if (auto cost = usage->find("cost_usd"); cost != usage->end() && cost->is_number()) r.cost_usd = cost->get<double>();
  }
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
