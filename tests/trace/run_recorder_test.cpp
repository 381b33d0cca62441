// The run recorder: each run that passes is written to the store when it ends, its events as trace lines without the
// tokens, keys masked, runs going on at once kept apart; a store that fails costs the record, never the run.
#include <catch2/catch.hpp>

#include "engine/core/json_parse.h"
#include "engine/trace/run_recorder.h"
#include "support/test_support.h"

using namespace engine;

namespace {

void at(EventSink& sink, const std::string& run, const std::string& path, EventType type, Value data) {
  sink.receive(test::event(type, data), EventPlace{run, path});
}

}  // namespace

TEST_CASE("run recorder: each run is recorded when it ends, masked, its tokens left out", "[trace][runs]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  store::RunWriter writer(store, 16);
  const std::string key = "sk-recorder-secret-0123456789";
  trace::RunRecorder recorder(writer, {"batch", "workflows/qa.yaml"}, test::secrets_of({key}));
  CHECK(recorder.detail() == EventDetail::Full);
  // Two runs at once, their events interleaved.
  at(recorder, "run-a", "", EventType::ChainStart, {{"name", "qa"}, {"inputs", {{"question", "my key is " + key}}},
                                                    {"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"}});
  at(recorder, "run-b", "", EventType::ChainStart, {{"name", "qa"}, {"inputs", {{"question", "b"}}}});
  at(recorder, "run-a", "", EventType::LlmStart, {{"call", 0}, {"prompt", "Q: my key is " + key}});
  at(recorder, "run-a", "", EventType::LlmToken, {{"text", "4"}});
  at(recorder, "run-a", "", EventType::LlmEnd, {{"call", 0}, {"text", "Final Answer: 4"}});
  at(recorder, "run-b", "", EventType::ChainEnd, {{"output", "b?"}, {"stopped_reason", "error"}, {"elapsed_ms", 3.0},
                                                  {"error", {{"kind", "llm.http_error"}, {"message", "500"}}}});
  writer.flush();
  CHECK(store.list({}).size() == 1);  // handed to the writer as its chain_end passed
  at(recorder, "run-a", "", EventType::ChainEnd, {{"output", "4"}, {"stopped_reason", "finish"}, {"elapsed_ms", 7.5},
                                                  {"usage", {{"prompt_tokens", 40}, {"completion_tokens", 6}, {"cost_usd", 0.002}}}});
  writer.flush();
  CHECK(store.list({}).size() == 2);
  CHECK(writer.written() == 2);
  CHECK(recorder.failure().empty());

  auto a = store.find("run-a");
  REQUIRE(a);
  CHECK(a->command == "batch");
  CHECK(a->source == "workflows/qa.yaml");
  CHECK(a->status == "ok");
  CHECK(a->output == "4");
  CHECK(a->prompt_tokens == 40);
  CHECK(a->cost_usd == Approx(0.002));
  CHECK(a->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(a->inputs["question"] == "my key is ***");
  REQUIRE(a->events.size() == 4);  // the token is not kept: its text is in llm_end
  CHECK(parse_json(a->events[1])["type"] == "llm_start");
  for (const auto& line : a->events) CHECK_FALSE(test::holds_piece_of_key(line, key));
  auto b = store.find("run-b");
  REQUIRE(b);
  CHECK(b->status == "failed");
  CHECK(b->error["kind"] == "llm.http_error");
  CHECK(b->events.size() == 2);
}

TEST_CASE("run recorder: a run it did not see begin, and parts of runs, are not runs of their own", "[trace][runs]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  store::RunWriter writer(store, 16);
  trace::RunRecorder recorder(writer, {"run", "w.yaml"}, std::make_shared<SecretSet>());
  at(recorder, "late", "", EventType::LlmEnd, {{"call", 0}, {"text", "x"}});
  at(recorder, "late", "", EventType::ChainEnd, {{"output", "x"}});
  at(recorder, "r", "", EventType::ChainStart, {{"name", "team"}});
  at(recorder, "r", "helper", EventType::ChainStart, {{"name", "helper"}});  // a workflow used as a tool
  at(recorder, "r", "helper", EventType::ChainEnd, {{"output", "h"}});
  writer.flush();
  CHECK(writer.written() == 0);
  at(recorder, "r", "", EventType::ChainEnd, {{"output", "done"}, {"stopped_reason", "finish"}});
  writer.flush();
  CHECK(writer.written() == 1);
  CHECK(store.find("r")->events.size() == 4);
  CHECK_FALSE(store.find("late"));
}
