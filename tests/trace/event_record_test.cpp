// An event as a JSON line: written straight out, it is the same text as the object event_record() builds, whatever
// the data holds (nested values, text that is not UTF-8, a key that names one of the record's own).
#include <catch2/catch.hpp>

#include "engine/core/json_text.h"
#include "engine/trace/event_record.h"

using namespace engine;

TEST_CASE("event record: the line written straight out is the record's JSON text", "[trace]") {
  std::vector<std::pair<Event, EventPlace>> cases = {
      {Event{EventType::ChainStart, Value{{"name", "calc"}, {"inputs", {{"input", "What is 2+2?"}}}}}, EventPlace{"r1", ""}},
      {Event{EventType::LlmStart, Value{{"call", 0}, {"messages", Value::array({Value{{"role", "user"}, {"content", "hé\n\"q\""}}})}}},
       EventPlace{"r1", "plan/many[3]"}},
      {Event{EventType::ToolEnd, Value{{"tool", "calc"}, {"observation", std::string("bad \xff utf-8")}, {"n", 1.5}}},
       EventPlace{"", ""}},
      {Event{EventType::StepEnd, Value{{"path", "mine"}, {"status", "done"}}}, EventPlace{"r2", "step"}},  // its own path
      {Event{EventType::ChainEnd, Value()}, EventPlace{"r3", ""}},
  };
  for (const auto& [event, place] : cases) {
    INFO(event_name(event.type));
    CHECK(trace::event_line(event, place, 12.25) == to_json_text(trace::event_record(event, place, 12.25)));
  }
}
