// Work that blocks, kept off the fibers' threads: a fiber's goes to the worker's thread while its own thread runs
// the other fibers; an ordinary thread does its own; what the work throws comes out where it was handed over.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "engine/core/blocking_worker.h"
#include "engine/core/error.h"
#include "engine/core/fiber.h"

using namespace engine;
using namespace std::chrono_literals;

TEST_CASE("blocking worker: an ordinary thread's work runs on that thread", "[core][fiber]") {
  BlockingWorker worker;
  std::thread::id ran_on;
  worker.run([&] { ran_on = std::this_thread::get_id(); });
  CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("blocking worker: a fiber's work blocks the worker's thread, not the fiber's", "[core][fiber]") {
  BlockingWorker worker;
  FiberPool pool(1);  // one thread: were it blocked by the work, the second fiber could not run until it ended
  std::promise<void> other_ran;
  std::atomic<bool> saw_other{false};
  std::thread::id fiber_thread, work_thread;
  pool.spawn([&] {
    fiber_thread = std::this_thread::get_id();
    worker.run([&] {
      work_thread = std::this_thread::get_id();
      saw_other = other_ran.get_future().wait_for(600s) == std::future_status::ready;
    });
  });
  pool.spawn([&] { other_ran.set_value(); });
  pool.join();
  CHECK(saw_other);
  CHECK(work_thread != fiber_thread);
}

TEST_CASE("blocking worker: what the work throws comes out in the fiber that handed it over", "[core][fiber]") {
  BlockingWorker worker;
  FiberPool pool(1);
  std::string caught;
  pool.spawn([&] {
    try {
      worker.run([] { throw Error(ErrorKind::StoreFailed, "database is locked"); });
    } catch (const Error& e) {
      caught = std::string(e.kind_name()) + ": " + e.message();
    }
  });
  pool.join();
  CHECK(caught == "store.failed: database is locked");
}
