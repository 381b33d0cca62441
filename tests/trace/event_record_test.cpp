// An event as a JSON line: written straight out, it is the same text as the object event_record() builds, whatever
// the fields hold (nested values, text that is not UTF-8), and a summary leaves out what only full detail carries.
#include <catch2/catch.hpp>

#include "engine/core/json_text.h"
#include "engine/trace/event_record.h"

using namespace engine;

TEST_CASE("event record: the line written straight out is the record's JSON text", "[trace]") {
  events::ChainStart start{.name = "calc", .chain = ChainKind::Agent};
  start.inputs = Value{{"input", "What is 2+2?"}};
  events::LlmStart call{.call = 0, .llm = "openai:gpt"};
  call.prompt = "";
  call.messages = {{"user", "hé\n\"q\"", {}, ""}};
  events::StepEnd step{.step = "step", .status = StepStatus::Failed, .elapsed_ms = 1.5};
  step.error = events::ErrorInfo{"tool.failed", "no", "w.yaml:3:4"};
  std::vector<std::pair<Event, EventPlace>> cases = {
      {Event{start}, EventPlace{"r1", ""}},
      {Event{call}, EventPlace{"r1", "plan/many[3]"}},
      {Event{events::ToolEnd{"calc", "call_1", std::string("bad \xff utf-8"), "tool.failed"}}, EventPlace{"", ""}},
      {Event{step}, EventPlace{"r2", "step"}},
      {Event{events::ChainEnd{}}, EventPlace{"r3", ""}},
  };
  for (const auto& [event, place] : cases) {
    INFO(event_name(event.type()));
    CHECK(trace::event_line(event, place, 12.25) == to_json_text(trace::event_record(event, place, 12.25)));
    CHECK(trace::event_line(event, place, 12.25, EventDetail::Summary) ==
          to_json_text(trace::event_record(event, place, 12.25, EventDetail::Summary)));
  }
  CHECK(trace::event_line(Event{step}, EventPlace{"r2", "step"}, 12.25) ==
        R"({"t_ms":12.25,"type":"step_end","run_id":"r2","path":"step","step":"step","status":"failed",)"
        R"("elapsed_ms":1.5,"error":{"kind":"tool.failed","message":"no","at":"w.yaml:3:4"}})");
}

TEST_CASE("event record: a summary has no prompt, messages or inputs, whoever else reads the event", "[trace]") {
  events::ChainStart start{.name = "calc", .chain = ChainKind::Workflow};
  start.inputs = Value{{"input", "x"}};
  CHECK(trace::event_line(Event{start}, EventPlace{"r1", ""}, 1, EventDetail::Summary) ==
        R"({"t_ms":1.0,"type":"chain_start","run_id":"r1","name":"calc","chain":"Workflow"})");
  events::LlmStart call{.call = 2, .llm = "scripted", .stream = true};
  call.prompt = "the whole prompt";
  CHECK(trace::event_line(Event{call}, EventPlace{}, 1, EventDetail::Summary) ==
        R"({"t_ms":1.0,"type":"llm_start","call":2,"llm":"scripted","stream":true})");
  CHECK(trace::event_line(Event{call}, EventPlace{}, 1) ==
        R"({"t_ms":1.0,"type":"llm_start","call":2,"llm":"scripted","stream":true,"prompt":"the whole prompt"})");
}
