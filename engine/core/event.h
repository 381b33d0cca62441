#pragma once
// What a run reports as it goes. Lower layers emit events; only cli/ decides how they are shown.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/event_kinds.h"

namespace engine {

// How much of a run a sink reads. Emitters build no event for None, and leave out the bulky fields (the prompt,
// the messages, the inputs) for Summary: a prompt copied into an event nobody reads costs as much as rendering it,
// and an input of megabytes would be held once more.
enum class EventDetail { None, Summary, Full };

// One event of each kind (core/event_kinds.h), in the order of EventType.
using EventData = std::variant<events::ChainStart, events::ChainEnd, events::LlmStart, events::LlmToken,
                               events::AnswerToken, events::LlmRetry, events::LlmEnd, events::AgentAction,
                               events::AgentFinish, events::ToolStart, events::ToolLog, events::ToolProgress,
                               events::ParserLog, events::ToolEnd, events::ParseError, events::EarlyStop,
                               events::Failure, events::StepStart, events::StepRetry, events::StepEnd>;

struct Event {
  EventData data;
  // When it happened, taken as the event is made (by its emitter), not when a sink receives it: a sink behind a
  // lock or a queue would otherwise shift it, and a span's start and end must be the call's own.
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now();

  EventType type() const { return static_cast<EventType>(data.index()); }
  // The event as kind K, or null when it is of another kind.
  template <class K>
  const K* as() const {
    return std::get_if<K>(&data);
  }
};

// Whose an event is: the run's id, and the path of the step that emitted it ("classify", "revise[2]",
// "research/agent"; empty for the run itself). Sinks add it as events pass through them, so an emitter deep in an
// agent needs to know neither.
struct EventPlace {
  std::string_view run_id;
  std::string_view step;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // What emitters call: the event as its emitter sees it, before any step or run has placed it.
  void emit(const Event& event) { receive(event, EventPlace{}); }
  virtual void receive(const Event& event, const EventPlace& place) = 0;
  virtual EventDetail detail() const { return EventDetail::Full; }
};

// Drops every event: for runs nobody watches (benchmarks, quiet batch runs).
class NullSink : public EventSink {
 public:
  void receive(const Event&, const EventPlace&) override {}
  EventDetail detail() const override { return EventDetail::None; }
};

// Fans one event out to several sinks.
class EventFanout : public EventSink {
 public:
  void add(EventSink* sink) { sinks_.push_back(sink); }
  void receive(const Event& event, const EventPlace& place) override {
    for (auto* s : sinks_) s->receive(event, place);
  }
  bool empty() const { return sinks_.empty(); }
  EventDetail detail() const override {
    EventDetail most = EventDetail::None;
    for (auto* s : sinks_) most = std::max(most, s->detail());
    return most;
  }

 private:
  std::vector<EventSink*> sinks_;
};

// Lets one thread at a time through to `inner`: for runs or steps that share a sink (a console, a trace file) whose
// state must stay whole.
class SerialSink : public EventSink {
 public:
  explicit SerialSink(EventSink& inner) : inner_(inner) {}
  void receive(const Event& event, const EventPlace& place) override {
    std::lock_guard lock(mutex_);
    inner_.receive(event, place);
  }
  EventDetail detail() const override { return inner_.detail(); }

 private:
  EventSink& inner_;
  std::mutex mutex_;
};

// Places the events that pass through it: under a step (whose path goes before the path they already have), and
// in a run (the outermost run's id wins: a sub-workflow's events are its caller's run's). The event itself is not
// copied.
class PlacingSink : public EventSink {
 public:
  PlacingSink(EventSink& inner, std::string step, std::string run_id = {})
      : inner_(inner), step_(std::move(step)), run_id_(std::move(run_id)) {}
  void receive(const Event& event, const EventPlace& place) override;
  EventDetail detail() const override { return inner_.detail(); }

 private:
  EventSink& inner_;
  std::string step_;
  std::string run_id_;
};

}  // namespace engine
