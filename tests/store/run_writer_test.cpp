// The run store's writes off the runs' threads: every run handed over from many threads is written, a run waits for
// its own write only, and a run the store refuses costs only itself.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <future>
#include <thread>

#include "engine/core/error.h"
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

// Another process's connection holding the store's write lock until release(), as a busy store is.
class OtherWriter {
 public:
  explicit OtherWriter(const std::filesystem::path& file) {
    REQUIRE(sqlite3_open(file.c_str(), &db_) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db_, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);
  }
  ~OtherWriter() { sqlite3_close(db_); }
  void release() { REQUIRE(sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK); }

 private:
  sqlite3* db_ = nullptr;
};

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

// Handing a run over never waits (it happens where events are delivered, maybe under a sink's lock): with the
// store locked by another process and the queue full, a run is refused at once and the failure says so.
TEST_CASE("run writer: past its queue's bound a run is refused at once, not waited for, and the failure says so",
          "[store][runs]") {
  test::TempDir dir;
  auto file = dir.path() / "runs.db";
  store::RunStore store(file);
  OtherWriter other(file);
  std::vector<bool> taken;
  {
    store::RunWriter writer(store, 2);
    // The writer may have taken the first run and be waiting on the lock, or not yet: either way the fourth run
    // finds two waiting.
    for (const char* id : {"r1", "r2", "r3", "r4"}) taken.push_back(writer.submit(run_named(id)));
    CHECK_FALSE(taken[3]);
    std::string why = writer.failure();
    CHECK((why == "the store's writer had 2 runs waiting, and run r3 could not wait with them" ||
           why == "the store's writer had 2 runs waiting, and run r4 could not wait with them"));
    other.release();
    writer.flush();
    CHECK(writer.written() == static_cast<size_t>(std::count(taken.begin(), taken.end(), true)));
  }
  CHECK(store.list({}).size() == static_cast<size_t>(std::count(taken.begin(), taken.end(), true)));
}

// The runs API reads on the writer's thread, so that a request holds none of the server's threads while SQLite works:
// the read is queued at once, even while the writes before it wait on a lock, and sees every run handed over first.
TEST_CASE("run writer: a read runs on the writer's thread once the runs handed over before it are written",
          "[store][runs]") {
  test::TempDir dir;
  auto file = dir.path() / "runs.db";
  store::RunStore store(file);
  OtherWriter other(file);
  store::RunWriter writer(store, 16);
  REQUIRE(writer.submit(run_named("before")));
  std::promise<std::pair<bool, std::thread::id>> seen;
  // Returns while the write before it still waits for the lock (were it to wait too, the test would hang here).
  writer.read([&](store::RunStore& s) { seen.set_value({s.find("before").has_value(), std::this_thread::get_id()}); });
  writer.read([](store::RunStore&) { throw Error(ErrorKind::StoreFailed, "a read that fails"); });
  other.release();
  auto [found, thread] = seen.get_future().get();
  CHECK(found);
  CHECK(thread != std::this_thread::get_id());
  // A read that throws costs only itself: the writer goes on.
  REQUIRE(writer.submit(run_named("after")));
  writer.flush();
  CHECK(writer.written() == 2);
}

// A served run's fiber asks the store what it holds of its id before it goes on (server/served_runs.h).
TEST_CASE("run writer: read_waiting returns once its read has run, after the journal written before it, with what "
          "it threw", "[store][runs]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  store::RunWriter writer(store, 16);
  store::JournalRun header;
  header.id = "j1";
  header.workflow = "w";
  writer.submit_journal({"j1", header, {}, std::nullopt});
  std::optional<store::JournalRun> found;
  std::thread::id thread;
  writer.read_waiting([&](store::RunStore& s) {
    found = s.find_journal("j1");
    thread = std::this_thread::get_id();
  });
  CHECK(found.has_value());
  CHECK(thread != std::this_thread::get_id());
  try {
    writer.read_waiting([](store::RunStore&) { throw Error(ErrorKind::StoreFailed, "a read that fails"); });
    FAIL("the read's error was not rethrown");
  } catch (const Error& e) {
    CHECK(e.message() == "a read that fails");
  }
}
