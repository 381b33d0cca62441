// The executor's kept workers: a task never waits for a thread (tasks that wait for each other still meet), the
// threads are kept and reused from one run to the next, and the pool ends cleanly.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/workflow/worker_pool.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// Waits (at most 10 s) until every worker is back waiting for a task.
void settle(const workflow::WorkerPool& pool) {
  test::wait_until([&] { return pool.waiting() >= pool.size(); }, 10000);
}

}  // namespace

TEST_CASE("worker pool: tasks that wait for each other all run at once, and the threads are kept", "[workflow]") {
  workflow::WorkerPool pool;
  for (int round = 0; round < 3; ++round) {
    settle(pool);
    std::mutex m;
    std::condition_variable cv;
    int arrived = 0, met = 0, done = 0;
    for (int t = 0; t < 3; ++t)
      pool.run([&] {
        std::unique_lock lock(m);
        ++arrived;
        cv.notify_all();
        // each waits for the other two: this only ends if the three run on three threads at once
        if (cv.wait_for(lock, std::chrono::seconds(10), [&] { return arrived >= 3; })) ++met;
        ++done;
        cv.notify_all();
      });
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done == 3; });
    CHECK(met == 3);
  }
  CHECK(pool.size() == 3);  // the second and third rounds started no thread
}

TEST_CASE("worker pool: ending it lets queued work finish", "[workflow]") {
  std::atomic<int> ran{0};
  {
    workflow::WorkerPool pool;
    for (int i = 0; i < 20; ++i) pool.run([&] { ++ran; });
  }
  CHECK(ran == 20);
}
