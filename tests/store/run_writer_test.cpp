// The run store's writes off the runs' threads: every run handed over from many threads is written, a run waits for
// its own write only, and a run the store refuses costs only itself.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/store/run_writer.h"
#include "support/test_support.h"

using namespace engine;

namespace {

store::RunRecord run_named(const std::string& id) {
  store::RunRecord r;
  r.id = id;
  r.workflow = "w";
  r.command = "batch";
  r.status = "ok";
  r.events = {"{\"type\":\"chain_start\"}"};
  return r;
}

}  // namespace

TEST_CASE("run writer: runs handed over from many threads at once are all written, each in the store after a flush",
          "[store][runs]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  store::RunWriter writer(store, 256);
  std::vector<std::thread> threads;
  std::atomic<int> found_after_wait{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        std::string id = "run-" + std::to_string(t) + "-" + std::to_string(i);
        REQUIRE(writer.submit(run_named(id)));
        writer.flush();
        if (store.find(id)) ++found_after_wait;
      }
    });
  for (auto& t : threads) t.join();
  writer.flush();
  CHECK(found_after_wait == 200);
  CHECK(writer.written() == 200);
  CHECK(writer.failure() == "");
  CHECK(store.list({.limit = 1000}).size() == 200);
}

TEST_CASE("run writer: a run the store refuses fails alone, the runs written beside it are kept", "[store][runs]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  store.record(run_named("taken"));
  {
    store::RunWriter writer(store, 16);
    // Queued together, so that they may go in one transaction: the duplicate id must not take the others down.
    for (const char* id : {"first", "taken", "last"}) REQUIRE(writer.submit(run_named(id)));
    writer.flush();
    CHECK(writer.written() == 2);
    CHECK_FALSE(writer.failure().empty());
  }
  CHECK(store.find("first"));
  CHECK(store.find("last"));
  CHECK(store.list({}).size() == 3);
}
