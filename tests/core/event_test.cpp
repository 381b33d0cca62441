// Events are placed as they pass through sinks: a step's path goes before what its events already have, and
// the outermost run's id is the one they carry. The event itself is passed on, not copied.
#include <catch2/catch.hpp>

#include "engine/core/event.h"
#include "support/test_support.h"

using namespace engine;

TEST_CASE("placing: steps nest as a path, the outer run's id wins, and names are typed", "[core][event]") {
  test::EventLog log;
  PlacingSink run(log, "", "run-outer");
  PlacingSink research(run, "research");
  PlacingSink inner_run(research, "", "run-inner");  // a sub-workflow's own run
  PlacingSink agent(inner_run, "agent");
  agent.emit({EventType::LlmStart, Value{{"call", 0}}});
  research.emit({EventType::StepStart, Value{{"step", "research"}}});
  run.emit({EventType::ChainEnd, Value::object()});
  REQUIRE(log.events.size() == 3);
  CHECK(log.events[0].type == "llm_start");
  CHECK(log.events[0].step == "research/agent");
  CHECK(log.events[0].run_id == "run-outer");
  CHECK(log.events[1].step == "research");
  CHECK(log.events[2].step == "");
  CHECK(log.events[2].run_id == "run-outer");
  CHECK(event_name(EventType::StepRetry) == "step_retry");
  CHECK(event_name(EventType::Error) == "error");
}
