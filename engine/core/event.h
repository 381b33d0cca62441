#pragma once
// What a run reports as it goes. Lower layers emit events; only cli/ decides how they are shown.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/core/value.h"

namespace engine {

// How much of a run a sink reads. Emitters build no event for None, and leave out the bulky fields (the prompt,
// the messages, the inputs) for Summary: a prompt copied into an event nobody reads costs as much as rendering it,
// and an input of megabytes would be held once more.
enum class EventDetail { None, Summary, Full };

struct Event {
  std::string type;  // "chain_start", "llm_end", "agent_action", ... (docs/trace.md lists them)
  Value data;        // the event's fields
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(const Event& event) = 0;
  virtual EventDetail detail() const { return EventDetail::Full; }
};

// Drops every event: for runs nobody watches (benchmarks, quiet batch runs).
class NullSink : public EventSink {
 public:
  void emit(const Event&) override {}
  EventDetail detail() const override { return EventDetail::None; }
};

// Fans one event out to several sinks.
class EventFanout : public EventSink {
 public:
  void add(EventSink* sink) { sinks_.push_back(sink); }
  void emit(const Event& event) override {
    for (auto* s : sinks_) s->emit(event);
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

}  // namespace engine
