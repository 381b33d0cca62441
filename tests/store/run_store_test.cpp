// The run store: runs written whole and read back, newest first, filtered, found by a prefix of their id; many
// writers at once; old runs let go past the limit; a file that is not a store refused with a clear error.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <fstream>
#include <map>
#include <thread>

#include "engine/core/error.h"
#include "engine/store/run_store.h"
#include "support/test_support.h"

using namespace engine;
using engine::store::RunRecord;
using engine::store::RunStore;

namespace {

RunRecord sample_run(const std::string& id, const std::string& workflow, int64_t started_ms, bool failed = false) {
  RunRecord r;
  r.id = id;
  r.workflow = workflow;
  r.source = "workflows/" + workflow + ".yaml";
  r.command = "run";
  r.status = failed ? "failed" : "ok";
  r.stopped_reason = failed ? "error" : "finish";
  r.started_ms = started_ms;
  r.elapsed_ms = 12.5;
  r.inputs = Value{{"input", "What is 2+2?"}};
  r.output = failed ? Value() : Value("4");
  if (failed) r.error = Value{{"kind", "llm.http_error"}, {"message", "500"}};
  r.prompt_tokens = 30;
  r.completion_tokens = 5;
  r.cost_usd = 0.0001;
  r.events = {R"({"t_ms":0,"type":"chain_start","name":"x"})", R"({"t_ms":1.5,"type":"chain_end"})"};
  return r;
}

std::string store_error(const std::filesystem::path& file) {
  try {
    RunStore store(file);
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.message();
  }
  return "opened";
}

}  // namespace

TEST_CASE("run store: runs are read back as written, newest first, filtered, found by a prefix", "[store][runs]") {
  test::TempDir dir;
  {
    RunStore store(dir.path() / "deep" / "runs.db");  // its folder is made
    store.record(sample_run("aaaa111122223333", "calculator", 1000));
    store.record(sample_run("aaaa999922223333", "triage", 2000, true));
    store.record(sample_run("bbbb111122223333", "calculator", 3000));
  }
  RunStore store(dir.path() / "deep" / "runs.db");  // another process, later
  auto all = store.list({});
  REQUIRE(all.size() == 3);
  CHECK(all[0].id == "bbbb111122223333");
  CHECK(all[2].id == "aaaa111122223333");
  CHECK(all[0].events.empty());  // a list leaves the events out
  CHECK(store.list({.workflow = "calculator"}).size() == 2);
  CHECK(store.list({.status = "failed"}).size() == 1);
  CHECK(store.list({.since_ms = 2000}).size() == 2);
  CHECK(store.list({.limit = 1}).size() == 1);

  auto found = store.find("aaaa9999");
  REQUIRE(found);
  CHECK(found->workflow == "triage");
  CHECK(found->status == "failed");
  CHECK(found->error["kind"] == "llm.http_error");
  CHECK(found->output.is_null());
  CHECK(found->inputs["input"] == "What is 2+2?");
  CHECK(found->prompt_tokens == 30);
  CHECK(found->cost_usd == Approx(0.0001));
  CHECK(found->events.size() == 2);
  CHECK(found->events[1] == R"({"t_ms":1.5,"type":"chain_end"})");
  CHECK(store.find("aaaa111122223333")->workflow == "calculator");
  CHECK_FALSE(store.find("cccc"));
  CHECK_THROWS_WITH(store.find("aaaa"), Catch::Contains("more than one run's id starts with 'aaaa'"));
}

TEST_CASE("run store: threads and a second connection write at once and lose nothing", "[store][runs]") {
  test::TempDir dir;
  RunStore one(dir.path() / "runs.db"), two(dir.path() / "runs.db");
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 50; ++i) {
        char id[17];
        std::snprintf(id, sizeof id, "%08x%08x", w, i);
        (w % 2 ? one : two).record(sample_run(id, "batch", 1000 + i));
      }
    });
  for (auto& t : writers) t.join();
  CHECK(one.list({.limit = 1000}).size() == 200);
}

TEST_CASE("run store: past its limit the oldest runs go, with their events", "[store][runs]") {
  test::TempDir dir;
  RunStore store(dir.path() / "runs.db");
  store.set_keep(5);
  for (int i = 0; i < 70; ++i) {
    char id[17];
    std::snprintf(id, sizeof id, "%016x", i);
    store.record(sample_run(id, "w", i));
  }
  auto kept = store.list({.limit = 1000});
  CHECK(kept.size() <= 5 + 64);  // pruned now and then, not at every write
  CHECK(kept.size() >= 5);
  CHECK(kept.front().id == "0000000000000045");
  CHECK_FALSE(store.find("0000000000000000"));  // gone at the first prune after the 5th write (within 64 writes)
  // Pruned at once, when asked: the newest three stay, with their events, and nothing else.
  store.set_keep(3);
  CHECK(store.prune() == kept.size() - 3);
  auto three = store.list({.limit = 1000});
  REQUIRE(three.size() == 3);
  CHECK(three.back().id == "0000000000000043");
  CHECK(store.find("0000000000000043")->events.size() == 2);
  CHECK(store.prune() == 0);
}

TEST_CASE("run store: ENGINE_STORE_KEEP sets how many runs it keeps, a whole number from 1", "[store][runs]") {
  std::map<std::string, std::string> vars;
  auto env = [&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  CHECK(store::store_keep(env) == RunStore::kDefaultKeep);
  vars["ENGINE_STORE_KEEP"] = "250";
  CHECK(store::store_keep(env) == 250);
  for (const char* bad : {"0", "-1", "ten", "5x", "99999999999999999999999"}) {
    vars["ENGINE_STORE_KEEP"] = bad;
    INFO(bad);
    CHECK_THROWS_WITH(store::store_keep(env), Catch::Contains("ENGINE_STORE_KEEP is how many runs the store keeps"));
  }
}

TEST_CASE("run store: processes that record a run each keep the WAL short, and a batch empties it at the end", "[store][runs]") {
  test::TempDir dir;
  auto file = dir.path() / "runs.db";
  auto wal_bytes = [&] {
    std::error_code ec;
    auto size = std::filesystem::file_size(file.string() + "-wal", ec);
    return ec ? 0 : size;
  };
  size_t largest = 0;
  for (int i = 0; i < 100; ++i) {  // `engine run` a hundred times: a store opened, a run written, the store closed
    RunStore store(file);
    char id[17];
    std::snprintf(id, sizeof id, "%016x", i);
    store.record(sample_run(id, "w", i));
    largest = std::max<size_t>(largest, wal_bytes());
  }
  // Each process reads the whole WAL when it opens the file: it never grows past a few dozen pages.
  CHECK(largest < 48 * 4096);
  {
    RunStore batch(file);
    for (int i = 100; i < 400; ++i) {
      char id[17];
      std::snprintf(id, sizeof id, "%016x", i);
      batch.record(sample_run(id, "w", i));
    }
  }
  CHECK(wal_bytes() < 48 * 4096);
  CHECK(RunStore(file).list({.limit = 1000}).size() == 400);
}

TEST_CASE("run store: a file that is not a run store is refused, and left as it was", "[store][runs]") {
  test::TempDir dir;
  auto garbage = dir.write("garbage.db", std::string(4096, 'x'));
  CHECK(store_error(garbage).rfind("store.not_a_store: " + garbage.string() + " is not a run store of this engine", 0) == 0);
  // Another program's SQLite database.
  auto other = dir.path() / "other.db";
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(other.c_str(), &db) == SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  CHECK(store_error(other).find("it is another SQLite database") != std::string::npos);
  // A store of a newer engine.
  auto newer = dir.path() / "newer.db";
  { RunStore store(newer); }
  REQUIRE(sqlite3_open(newer.c_str(), &db) == SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  CHECK(store_error(newer).find("made by a newer engine (store version 99)") != std::string::npos);
  std::ifstream left(garbage);
  CHECK(std::string(std::istreambuf_iterator<char>(left), {}) == std::string(4096, 'x'));
}

TEST_CASE("run store: where it is, from the flag, ENGINE_STORE, XDG_DATA_HOME or HOME", "[store][runs]") {
  std::map<std::string, std::string> vars;
  auto env = [&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  CHECK_FALSE(store::store_location("", false, env));  // no HOME: nowhere
  vars["HOME"] = "/home/ada";
  CHECK(store::store_location("", false, env) == "/home/ada/.local/share/engine/runs.db");
  vars["XDG_DATA_HOME"] = "/data";
  CHECK(store::store_location("", false, env) == "/data/engine/runs.db");
  vars["ENGINE_STORE"] = "/tmp/r.db";
  CHECK(store::store_location("", false, env) == "/tmp/r.db");
  CHECK(store::store_location("mine.db", false, env) == "mine.db");
  CHECK_FALSE(store::store_location("mine.db", true, env));
  vars["ENGINE_STORE"] = "off";
  CHECK_FALSE(store::store_location("", false, env));
}
