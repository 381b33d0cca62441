// engine runs: what engine run, chat and batch recorded, listed, shown again, compared and exported; --no-store; a
// broken store costs a warning, never the run.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <set>

#include "engine/core/json_parse.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

TEST_CASE("runs e2e: a run is recorded, listed and shown as the console showed it", "[e2e][runs]") {
  test::TempDir dir;
  std::string store = " --store " + shell_quote((dir.path() / "runs.db").string());
  auto run = run_engine("run workflows/calculator.yaml --json -q --input 'What is 12 * 7 + 3?'" + store);
  REQUIRE(run.exit_code == 0);
  std::string id = parse_json(run.out)["run_id"];
  auto failed = run_engine("run workflows/calculator.yaml -q --llm replay:/nonexistent.jsonl --input x" + store);
  CHECK(failed.exit_code != 0);

  auto list = run_engine("runs list --json" + store);
  REQUIRE(list.exit_code == 0);
  Value runs = parse_json(list.out);
  REQUIRE(runs.size() >= 1);
  CHECK(runs.back()["id"] == id);
  CHECK(runs.back()["workflow"] == "calculator");
  CHECK(runs.back()["command"] == "run");
  CHECK(runs.back()["status"] == "ok");
  CHECK(runs.back()["output"] == "87");
  CHECK(runs.back()["inputs"]["input"] == "What is 12 * 7 + 3?");
  auto table = run_engine("runs list --workflow calculator --status ok" + store);
  CHECK(table.out.find(id) != std::string::npos);
  CHECK(table.out.rfind("ID ", 0) == 0);

  auto shown = run_engine("runs show " + id.substr(0, 8) + store);
  REQUIRE(shown.exit_code == 0);
  auto live = run_engine("run workflows/calculator.yaml --no-store --input 'What is 12 * 7 + 3?'");
  // The transcript the console showed when it ran, then the answer.
  CHECK(shown.out.find(live.err) != std::string::npos);
  CHECK(shown.out.size() >= 3);
  CHECK(shown.out.substr(shown.out.size() - 3) == "87\n");
  auto json = run_engine("runs show --json " + id + store);
  Value doc = parse_json(json.out);
  CHECK(doc["events"][0]["type"] == "chain_start");
  CHECK(doc["events"].back()["type"] == "chain_end");

  auto missing = run_engine("runs show ffffffffff" + store);
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("error[store.no_such_run]") != std::string::npos);
  auto bad_since = run_engine("runs list --since yesterday" + store);
  CHECK(bad_since.exit_code == 2);
}

TEST_CASE("runs e2e: each batch row is a run of its own and --no-store records nothing", "[e2e][runs]") {
  test::TempDir dir;
  auto db = dir.path() / "runs.db";
  auto data = dir.write("rows.jsonl", "{\"question\": \"What is 1 + 1?\"}\n{\"question\": \"What is 2 + 2?\"}\n"
                                      "{\"question\": \"What is 3 + 3?\"}\n");
  auto batch = run_engine("batch workflows/batch_qa.yaml --no-progress --data " + shell_quote(data.string()) +
                          " --out " + shell_quote((dir.path() / "out.jsonl").string()) + " --store " +
                          shell_quote(db.string()));
  REQUIRE(batch.exit_code == 0);
  Value runs = parse_json(run_engine("runs list --json --store " + shell_quote(db.string())).out);
  CHECK(runs.size() == 3);
  for (const Value& r : runs) CHECK(r["command"] == "batch");
  auto none = run_engine("run workflows/calculator.yaml -q --no-store --input x", "",
                         "ENGINE_STORE=" + shell_quote((dir.path() / "never.db").string()));
  CHECK(none.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "never.db"));
  auto off = run_engine("run workflows/calculator.yaml -q --input x", "",
                        "ENGINE_STORE=off");
  CHECK(off.exit_code == 0);
  CHECK(run_engine("runs list", "", "ENGINE_STORE=off").exit_code == 2);
}

TEST_CASE("runs e2e: a store that is not one costs a warning, never the run", "[e2e][runs]") {
  test::TempDir dir;
  auto broken = dir.write("runs.db", "this is not a database, and it is not the engine's to change\n");
  auto r = run_engine("run workflows/calculator.yaml -q --input 'What is 12 * 7 + 3?' --store " +
                      shell_quote(broken.string()));
  CHECK(r.exit_code == 0);
  CHECK(r.out == "87\n");
  CHECK(r.err.find("engine: warning: the runs are not recorded: " + broken.string() + " is not a run store") !=
        std::string::npos);
  auto list = run_engine("runs list --store " + shell_quote(broken.string()));
  CHECK(list.exit_code != 0);
  CHECK(list.err.find("error[store.not_a_store]") != std::string::npos);
}

TEST_CASE("runs e2e: two runs side by side, and a stored run's spans sent to a collector", "[e2e][runs]") {
  test::TempDir dir;
  std::string store = " --store " + shell_quote((dir.path() / "runs.db").string());
  std::string a = parse_json(run_engine("run workflows/calculator.yaml --json -q --input 'What is 12 * 7 + 3?'" + store).out)["run_id"];
  std::string b = parse_json(run_engine("run workflows/calculator.yaml --json -q --input 'What is 12 * 7?'" + store).out)["run_id"];
  auto diff = run_engine("runs diff --json " + a + " " + b.substr(0, 8) + store);
  REQUIRE(diff.exit_code == 0);
  std::map<std::string, Value> lines;
  Value doc = parse_json(diff.out);
  for (const Value& line : doc["lines"]) lines[line["what"].get<std::string>()] = line;
  CHECK(lines["output"]["a"] == "87");
  CHECK(lines["output"]["b"] == "84");
  CHECK(lines["output"]["same"] == false);
  CHECK(lines["workflow"]["same"] == true);
  CHECK(lines["tool calculator #1"]["a"] == "87");
  CHECK(lines["model call #2"]["b"].get<std::string>().find("Final Answer: 84") != std::string::npos);
  auto table = run_engine("runs diff " + a + " " + b + store);
  CHECK(table.out.find("* output") != std::string::npos);
  CHECK(table.out.find("  workflow") != std::string::npos);

  test::OtlpReceiver receiver;
  auto sent = run_engine("runs export " + a + " --otlp " + receiver.base_url() + store);
  INFO(sent.err);
  REQUIRE(sent.exit_code == 0);
  std::vector<Value> spans = receiver.spans();
  std::set<std::string> names;
  for (const Value& span : spans) names.insert(span["name"]);
  CHECK(names.count("invoke_workflow calculator") == 1);
  CHECK(names.count("execute_tool calculator") == 1);
  // At the time it ran, not now: the run started within the last minutes.
  for (const Value& span : spans) {
    long long start_ms = std::stoll(span["startTimeUnixNano"].get<std::string>()) / 1000000;
    long long now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
    CHECK(start_ms <= now_ms);
    CHECK(start_ms > now_ms - 600000);
  }
  CHECK(run_engine("runs export " + a + store).exit_code == 2);  // no collector named
}
