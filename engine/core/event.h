#pragma once
// What a run reports as it goes. Lower layers emit events; only cli/ decides how they are shown.
#include <string>

#include "engine/core/value.h"

namespace engine {

struct Event {
  std::string type;  // "chain_start", "llm_end", "agent_action", ... (docs/trace.md lists them)
  Value data;        // the event's fields
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(const Event& event) = 0;
  // False when every event would be dropped: emitters then skip building the large ones (a prompt copied into an
  // event nobody reads costs as much as rendering it).
  virtual bool enabled() const { return true; }
};

// Drops every event: for runs nobody watches (benchmarks, quiet batch runs).
class NullSink : public EventSink {
 public:
  void emit(const Event&) override {}
  bool enabled() const override { return false; }
};

// Fans one event out to several sinks.
class EventFanout : public EventSink {
 public:
  void add(EventSink* sink) { sinks_.push_back(sink); }
  void emit(const Event& event) override {
    for (auto* s : sinks_) s->emit(event);
  }
  bool empty() const { return sinks_.empty(); }
  bool enabled() const override {
    for (auto* s : sinks_)
      if (s->enabled()) return true;
    return false;
  }

 private:
  std::vector<EventSink*> sinks_;
};

}  // namespace engine
