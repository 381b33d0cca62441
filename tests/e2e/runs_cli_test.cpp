// engine runs: what engine run, chat and batch recorded, listed, shown again, compared and exported; --no-store; a
// broken store costs a warning, never the run.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <set>
#include <thread>

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
  CHECK(sent.err.find("sent the " + std::to_string(spans.size()) + " spans of run " + a) == 0);
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
  // A collector that is down took nothing: a failure that says so, never "sent".
  auto down = run_engine("runs export " + a + " --otlp http://127.0.0.1:" + std::to_string(test::free_port()) + store);
  CHECK(down.exit_code == 1);
  std::string said = "engine: error[otlp.not_sent]: the collector did not take " + std::to_string(spans.size()) +
                     " of the " + std::to_string(spans.size()) + " spans of run " + a;
  CHECK(down.err.substr(0, said.size()) == said);
  CHECK(down.err.find("sent the") == std::string::npos);
}

TEST_CASE("runs e2e: engine runs prune keeps the newest, as ENGINE_STORE_KEEP or --keep says", "[e2e][runs]") {
  test::TempDir dir;
  std::string store = " --store " + shell_quote((dir.path() / "runs.db").string());
  std::vector<std::string> ids;
  for (const char* q : {"What is 1 + 1?", "What is 2 + 2?", "What is 3 + 3?", "What is 4 + 4?"})
    ids.push_back(parse_json(run_engine(std::string("run workflows/calculator.yaml --json -q --input '") + q + "'" + store).out)["run_id"]);
  auto pruned = run_engine("runs prune" + store, "", "ENGINE_STORE_KEEP=3");
  INFO(pruned.err);
  CHECK(pruned.exit_code == 0);
  CHECK(pruned.err.find("deleted 1 run;") != std::string::npos);
  CHECK(run_engine("runs prune --keep 1" + store).err.find("deleted 2 runs;") != std::string::npos);
  Value left = parse_json(run_engine("runs list --json" + store).out);
  REQUIRE(left.size() == 1);
  CHECK(left[0]["id"] == ids.back());
  CHECK(run_engine("runs prune --keep 0" + store).exit_code == 2);
  // A bad setting is said, and the run still answers.
  auto bad = run_engine("run workflows/calculator.yaml -q --input 'What is 1 + 1?'" + store, "", "ENGINE_STORE_KEEP=lots");
  CHECK(bad.exit_code == 0);
  CHECK(bad.err.find("ENGINE_STORE_KEEP is how many runs the store keeps") != std::string::npos);
}

TEST_CASE("runs e2e: a batch killed with SIGKILL loses no finished run's record, and the store still opens", "[e2e][runs]") {
  test::TempDir dir;
  auto db = dir.path() / "runs.db";
  auto workflow = dir.write("echo.yaml",
                            "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n    latency_ms: 40\n"
                            "    rules: [{match: 'Q: (?P<q>[a-z0-9 ]+)$', reply: 'A: {{ q }}'}]\n"
                            "steps:\n  ask: {kind: llm, prompt: 'Q: {{ question }}'}\n");
  std::string rows;
  for (int i = 0; i < 400; ++i) rows += "{\"question\": \"q" + std::to_string(i) + "\"}\n";
  auto data = dir.write("rows.jsonl", rows);
  auto out = dir.path() / "out.jsonl";
  auto finished = [&] {
    std::vector<std::string> ids;
    std::ifstream in(out);
    for (std::string line; std::getline(in, line);) {
      Value v = parse_json(line);
      if (v.is_object()) ids.push_back(v["run_id"]);  // a torn last line: its run is not finished for the batch
    }
    return ids;
  };
  {
    test::EngineProcess engine("batch " + shell_quote(workflow.string()) + " --no-progress --concurrency 16 --data " +
                               shell_quote(data.string()) + " --out " + shell_quote(out.string()) + " --store " +
                               shell_quote(db.string()));
    test::wait_until([&] { return finished().size() >= 40; }, 20000);
    engine.signal(SIGKILL);
    engine.wait();
  }
  std::vector<std::string> ids = finished();
  REQUIRE(ids.size() >= 40);
  REQUIRE(ids.size() < 400);  // killed mid-batch
  std::string store = " --store " + shell_quote(db.string());
  auto list = run_engine("runs list --json --limit 1000" + store);
  INFO(list.err);
  REQUIRE(list.exit_code == 0);
  std::set<std::string> recorded;
  for (const Value& r : parse_json(list.out)) recorded.insert(r["id"].get<std::string>());
  for (const std::string& id : ids) {
    INFO(id);
    CHECK(recorded.count(id) == 1);
  }
  // Each recorded run whole: its events from chain_start to chain_end.
  Value doc = parse_json(run_engine("runs show --json " + ids.back() + store).out);
  CHECK(doc["events"][0]["type"] == "chain_start");
  CHECK(doc["events"].back()["type"] == "chain_end");
  // And the store takes more runs.
  CHECK(run_engine("run workflows/calculator.yaml -q --input 'What is 1 + 1?'" + store).exit_code == 0);
}
