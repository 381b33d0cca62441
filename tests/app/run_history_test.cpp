// What `engine runs` and the viewer read from a stored run: its spans as the viewer draws them (parents first,
// siblings by start, parallel steps side by side on their real times, a run cut short closed as failed) and two
// runs' outlines paired line by line.
#include <catch2/catch.hpp>

#include "engine/app/run_history.h"
#include "engine/core/json_parse.h"

using namespace engine;

namespace {

// Two model calls in parallel steps, then a step that needs both: as the store keeps a workflow's events.
store::RunRecord parallel_run(bool cut_short = false) {
  store::RunRecord run;
  run.id = "2b741ab47e3b791c";
  run.workflow = "triage";
  run.status = cut_short ? "failed" : "ok";
  run.elapsed_ms = 201;
  run.output = "[BILLING] charged twice";
  run.events = {
      R"({"t_ms":0,"type":"chain_start","name":"triage","chain":"Workflow","inputs":{"message":"hi"}})",
      R"({"t_ms":0.1,"type":"step_start","path":"summary","step":"summary","kind":"llm"})",
      R"({"t_ms":0.12,"type":"llm_start","path":"summary","call":0,"llm":"scripted:triage","messages":[{"role":"user","content":"Summarise: hi"}]})",
      R"({"t_ms":0.15,"type":"step_start","path":"category","step":"category","kind":"llm"})",
      R"({"t_ms":0.2,"type":"llm_start","path":"category","call":0,"llm":"scripted:triage","messages":[{"role":"user","content":"Classify: hi"}]})",
      R"({"t_ms":200.3,"type":"llm_end","path":"summary","call":0,"finish_reason":"stop","text":"charged twice"})",
      R"({"t_ms":200.35,"type":"step_end","path":"summary","step":"summary","status":"done"})",
      R"({"t_ms":200.38,"type":"llm_end","path":"category","call":0,"finish_reason":"stop","text":"billing"})",
      R"({"t_ms":200.4,"type":"step_end","path":"category","step":"category","status":"done"})",
      R"({"t_ms":200.5,"type":"step_start","path":"note","step":"note","kind":"template"})",
  };
  if (!cut_short) {
    run.events.push_back(R"({"t_ms":200.7,"type":"step_end","path":"note","step":"note","status":"done","output":"[BILLING] charged twice"})");
    run.events.push_back(R"({"t_ms":200.8,"type":"chain_end","output":"[BILLING] charged twice","stopped_reason":"finish"})");
  }
  return run;
}

}  // namespace

TEST_CASE("run history: a run's spans, parents first, parallel steps side by side on their times", "[app][runs]") {
  Value spans = app::run_spans(parallel_run());
  std::vector<std::string> names;
  for (const Value& s : spans) names.push_back(s["name"].get<std::string>() + "@" + std::to_string(s["depth"].get<int>()));
  CHECK(names == std::vector<std::string>{"invoke_workflow triage@0", "summary@1", "chat triage@2", "category@1",
                                          "chat triage@2", "note@1"});
  const Value& run = spans[0];
  CHECK(run["parent"] == "");
  CHECK(run["start_ms"] == Approx(0));
  CHECK(run["end_ms"] == Approx(200.8));
  for (size_t i : {1, 3, 5}) CHECK(spans[i]["parent"] == run["id"]);
  CHECK(spans[2]["parent"] == spans[1]["id"]);
  CHECK(spans[4]["parent"] == spans[3]["id"]);
  // The two steps overlap: each starts before the other ends.
  CHECK(spans[1]["start_ms"].get<double>() < spans[3]["end_ms"].get<double>());
  CHECK(spans[3]["start_ms"].get<double>() < spans[1]["end_ms"].get<double>());
  CHECK(spans[2]["kind"] == "client");
  CHECK(spans[2]["end_ms"] == Approx(200.3));
  // The prompts and replies are there for the viewer to show.
  CHECK(spans[2]["attributes"]["gen_ai.input.messages"].get<std::string>().find("Summarise: hi") != std::string::npos);
  CHECK(spans[4]["attributes"]["gen_ai.output.messages"].get<std::string>().find("billing") != std::string::npos);
  // Cut to a few bytes when asked.
  Value short_content = app::run_spans(parallel_run(), 16);
  CHECK(short_content[2]["attributes"]["gen_ai.input.messages"].get<std::string>().size() <= 16);
}

TEST_CASE("run history: a run cut short has its open spans closed as failed at its end", "[app][runs]") {
  Value spans = app::run_spans(parallel_run(true));
  REQUIRE(spans.size() == 6);
  CHECK(spans[0]["failed"] == true);
  CHECK(spans[5]["name"] == "note");
  CHECK(spans[5]["failed"] == true);
  CHECK(spans[5]["end_ms"] == Approx(201));
  CHECK(spans[1]["failed"] == false);
}

TEST_CASE("run history: two runs' lines paired by what they are, the differing ones marked", "[app][runs]") {
  store::RunRecord a = parallel_run(), b = parallel_run();
  b.id = "77aa0c1200000000";
  b.output = "[SHIPPING] late parcel";
  b.events[5] = R"({"t_ms":200.3,"type":"llm_end","path":"summary","call":0,"finish_reason":"stop","text":"late parcel"})";
  Value diff = app::diff_runs(a, b);
  CHECK(diff["a"] == a.id);
  CHECK(diff["b"] == b.id);
  std::map<std::string, Value> lines;
  for (const Value& line : diff["lines"]) lines[line["what"].get<std::string>()] = line;
  CHECK(lines["output"]["same"] == false);
  CHECK(lines["output"]["b"] == "[SHIPPING] late parcel");
  CHECK(lines["workflow"]["same"] == true);
  CHECK(lines["model call #1 (summary)"]["a"] == "charged twice");
  CHECK(lines["model call #1 (summary)"]["b"] == "late parcel");
  CHECK(lines["model call #1 (category)"]["same"] == true);
}
