// Events are placed as they pass through sinks: a step's path goes before what its events already have, and
// the outermost run's id is the one they carry. Each kind is a type whose fields are written as JSON only where
// events leave, and read back from a stored record whatever it holds.
#include <catch2/catch.hpp>

#include <set>

#include "engine/core/event_json.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// One event of every kind with every field it has set, so that a field a writer or the reader forgets shows.
std::vector<Event> every_kind() {
  events::ChainStart start{"calc", ChainKind::Agent, "Observation: ", "Thought:", Value{{"input", "hi"}},
                           "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", true, false};
  events::LlmStart call{3, "openai:gpt", true, "00f067aa0ba902b7", 0.5, 256, {"\nObservation:"}, "prompt",
                        {{"assistant", "", {{"c1", "calc", "{\"x\":1}"}}, ""}, {"tool", "2", {}, "c1"}}};
  events::LlmEnd answer{3, std::nullopt, "Final Answer: 2", "stop", {5, 7, true, 0.25}, {{"c2", "calc", "{}"}},
                        "gpt-4o", "chatcmpl-1"};
  events::LlmEnd failed{4, events::ErrorInfo{"llm.http_error", "openai: 500", ""}};
  events::ChainEnd end{Value{{"answer", 2}}, StoppedReason::MaxCost, 12.5, {5, 7, 12, 1, 0.25},
                       events::ErrorInfo{"run.timeout", "too slow", "w.yaml:3:7"}};
  events::StepEnd step{"greet", StepStatus::Failed, 2.25, events::ErrorInfo{"tool.failed", "no", ""},
                       Value{{"name", "Ada"}}};
  return {Event{start},
          Event{end},
          Event{call},
          Event{events::LlmToken{"Fin"}},
          Event{events::AnswerToken{"2"}},
          Event{events::LlmRetry{1, "HTTP 429: slow down", 500, true}},
          Event{answer},
          Event{failed},
          Event{events::AgentAction{"calc", Value{{"x", 1}}, "Action: calc"}},
          Event{events::AgentFinish{"2", "Final Answer: 2"}},
          Event{events::ToolStart{"calc", "call_1", "2+2", "00f067aa0ba902b8"}},
          Event{events::ToolLog{"calc", "adding"}},
          Event{events::ToolProgress{"fetch", 3, Value(10), "page 3"}},
          Event{events::ParserLog{"parsers/p.lua", "saw it"}},
          Event{events::ToolEnd{"calc", "call_1", Value{{"sum", 4}}, "tool.failed", true}},
          Event{events::ParseError{"no Action:", "I think"}},
          Event{events::EarlyStop{StoppedReason::MaxIterations}},
          Event{events::Failure{{"output.missing", "no answer", "w.yaml:1:1"}}},
          Event{events::StepStart{"greet", StepKind::Lua}},
          Event{events::StepRetry{"greet", 1, 10, {"tool.failed", "503", ""}}},
          Event{step}};
}

}  // namespace

TEST_CASE("placing: steps nest as a path, the outer run's id wins, and names are typed", "[core][event]") {
  test::EventLog log;
  PlacingSink run(log, "", "run-outer");
  PlacingSink research(run, "research");
  PlacingSink inner_run(research, "", "run-inner");  // a sub-workflow's own run
  PlacingSink agent(inner_run, "agent");
  agent.emit({events::LlmStart{.call = 0}});
  research.emit({events::StepStart{.step = "research"}});
  run.emit({events::ChainEnd{}});
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

TEST_CASE("event kinds: each is named, and read back from its name", "[core][event]") {
  std::vector<Event> all = every_kind();
  std::set<std::string> names;
  for (const Event& e : all) {
    std::string name(event_name(e.type()));
    names.insert(name);
    CHECK(event_type_named(name) == e.type());
  }
  CHECK(names.size() == std::variant_size_v<EventData>);
  CHECK_FALSE(event_type_named("llm_stop"));
  CHECK(name_of(StepStatus::Skipped) == "skipped");
  CHECK(step_status_named("failed") == StepStatus::Failed);
  CHECK_FALSE(step_status_named("not_run"));
  CHECK(name_of(ChainKind::Agent) == "AgentExecutor");
  CHECK(chain_kind_named("Workflow") == ChainKind::Workflow);
  CHECK_FALSE(chain_kind_named("agent"));
}

TEST_CASE("event fields: written as text and as a value alike, and read back whole", "[core][event]") {
  for (const Event& e : every_kind()) {
    INFO(event_name(e.type()));
    Value fields = event_fields(e);
    std::string text = "{\"first\":0";
    append_event_fields(text, e);
    text += '}';
    Value with_first = Value{{"first", 0}};
    for (const auto& [k, v] : fields.items()) with_first[k] = v;
    CHECK(parse_json(text) == with_first);
    Event back = event_from_fields(e.type(), fields);
    CHECK(back.type() == e.type());
    CHECK(event_fields(back) == fields);
  }
}

TEST_CASE("event fields: as docs/trace.md lists them, in order", "[core][event]") {
  std::vector<Event> all = every_kind();
  CHECK(to_json_text(event_fields(all[0])) ==
        R"({"name":"calc","chain":"AgentExecutor","observation_prefix":"Observation: ","llm_prefix":"Thought:",)"
        R"("inputs":{"input":"hi"},"trace_id":"0af7651916cd43dd8448eb211c80319c","parent_span_id":"b7ad6b7169203331",)"
        R"("parent_local":true,"sampled":false})");
  CHECK(to_json_text(event_fields(all[1])) ==
        R"({"output":{"answer":2},"stopped_reason":"max_cost","elapsed_ms":12.5,"usage":{"prompt_tokens":5,)"
        R"("completion_tokens":7,"total_tokens":12,"llm_calls":1,"cost_usd":0.25},"error":{"kind":"run.timeout",)"
        R"("message":"too slow","at":"w.yaml:3:7"}})");
  CHECK(to_json_text(event_fields(all[2])) ==
        R"({"call":3,"llm":"openai:gpt","stream":true,"span_id":"00f067aa0ba902b7","temperature":0.5,)"
        R"("max_tokens":256,"stop":["\nObservation:"],"prompt":"prompt","messages":[{"role":"assistant",)"
        R"("content":"","tool_calls":[{"id":"c1","name":"calc","arguments":"{\"x\":1}"}]},{"role":"tool",)"
        R"("content":"2","tool_call_id":"c1"}]})");
  CHECK(to_json_text(event_fields(all[6])) ==
        R"({"call":3,"text":"Final Answer: 2","finish_reason":"stop","usage":{"prompt_tokens":5,)"
        R"("completion_tokens":7,"estimated":true,"cost_usd":0.25},"tool_calls":[{"id":"c2","name":"calc",)"
        R"("arguments":"{}"}],"model":"gpt-4o","id":"chatcmpl-1"})");
  // A call that failed says only which call and why.
  CHECK(to_json_text(event_fields(all[7])) == R"({"call":4,"error":{"kind":"llm.http_error","message":"openai: 500"}})");
  CHECK(to_json_text(event_fields(all[14])) ==
        R"({"tool":"calc","call_id":"call_1","observation":{"sum":4},"return_direct":true,"error":"tool.failed"})");
  CHECK(to_json_text(event_fields(all[17])) == R"({"kind":"output.missing","message":"no answer","at":"w.yaml:1:1"})");
  CHECK(to_json_text(event_fields(all[20])) ==
        R"({"step":"greet","status":"failed","elapsed_ms":2.25,"error":{"kind":"tool.failed","message":"no"},)"
        R"("inputs":{"name":"Ada"}})");
  // What is unset is not written: a tool call that went well, a call without a stream or a span.
  CHECK(to_json_text(event_fields(Event{events::ToolEnd{"calc", "call_2", "4"}})) ==
        R"({"tool":"calc","call_id":"call_2","observation":"4"})");
  CHECK(to_json_text(event_fields(Event{events::LlmStart{.call = 0, .llm = "scripted"}})) ==
        R"({"call":0,"llm":"scripted"})");
}

TEST_CASE("event fields: a stored record of the wrong shape reads back as defaults, never a throw",
          "[core][event]") {
  // What a store or a trace file holds is outside input: fields of the wrong type, a float for a count past what a
  // long holds, names that are not a reason or a kind, nested values that are not objects.
  Value hostile{{"call", 1e300},          {"llm", 7},
                {"stream", "yes"},        {"stop", "not a list"},
                {"messages", Value::array({1, "two", Value{{"role", 3}}})},
                {"max_tokens", -5}};
  Event start = event_from_fields(EventType::LlmStart, hostile);
  const auto& s = *start.as<events::LlmStart>();
  CHECK(s.call == 0);
  CHECK(s.llm == "");
  CHECK_FALSE(s.stream);
  CHECK(s.stop.empty());
  REQUIRE(s.messages.size() == 3);
  CHECK(s.messages[2].role == "");
  CHECK(s.max_tokens == -5);
  Event end = event_from_fields(EventType::ChainEnd, Value{{"stopped_reason", "bored"}, {"error", "a text"},
                                                          {"usage", Value::array()}, {"elapsed_ms", "1"}});
  const auto& e = *end.as<events::ChainEnd>();
  CHECK(e.stopped_reason == StoppedReason::Finish);
  CHECK_FALSE(e.error);
  CHECK(e.usage.prompt_tokens == 0);
  CHECK(e.elapsed_ms == 0);
  Event step = event_from_fields(EventType::StepStart, Value::array({1, 2}));
  CHECK(step.as<events::StepStart>()->step == "");
  Event known = event_from_fields(EventType::StepEnd, Value{{"status", "skipped"}, {"step", "b"}});
  CHECK(known.as<events::StepEnd>()->status == StepStatus::Skipped);
}
