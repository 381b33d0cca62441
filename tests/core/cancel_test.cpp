// Cancel: a stop asked for from another thread, or a deadline, ends a wait at once and says why.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/core/cancel.h"

using namespace engine;
using namespace std::chrono_literals;

TEST_CASE("cancel: a sleep ends when another thread cancels, and reports that it stopped", "[core][cancel]") {
  Cancel cancel;
  CHECK_FALSE(cancel.stopped());
  std::thread canceller([&] {
    std::this_thread::sleep_for(20ms);
    cancel.cancel();
  });
  // Ten minutes of sleep: the test would hang, not merely slow down, if the cancel did not wake it.
  CHECK_FALSE(cancel.sleep_for(600'000ms));
  canceller.join();
  CHECK(cancel.stopped());
  CHECK_FALSE(cancel.timed_out());
  Error e = stopped_error(cancel);
  CHECK(e.kind() == ErrorKind::RunCancelled);
  CHECK(e.message() == "the run was cancelled");
}

TEST_CASE("cancel: a sleep that ends first reports that the run goes on", "[core][cancel]") {
  Cancel cancel;
  CHECK(cancel.sleep_for(1ms));
  CHECK_NOTHROW(sleep_or_throw(&cancel, 1ms));
  CHECK_NOTHROW(sleep_or_throw(nullptr, 1ms));
}

TEST_CASE("cancel: a child stops at its deadline, saying what timed out, and its parent goes on", "[core][cancel]") {
  Cancel run;
  Cancel step(&run, Cancel::Clock::now() + 30ms, "the timeout of step 'ask' (30 ms) passed");
  CHECK_FALSE(step.sleep_for(600'000ms));
  CHECK(step.stopped());
  CHECK(step.timed_out());
  CHECK_FALSE(run.stopped());
  CHECK_THROWS_WITH(sleep_or_throw(&step, 1ms), "the timeout of step 'ask' (30 ms) passed");
  CHECK(stopped_error(step).kind() == ErrorKind::RunTimeout);
  CHECK(step.wait_slice(1000ms) == 0ms);
}

TEST_CASE("cancel: a parent's cancel reaches its children, and the earlier deadline wins", "[core][cancel]") {
  Cancel run;
  Cancel loop(&run, Cancel::Clock::now() + 600'000ms, "the loop's");
  Cancel step(&loop, Cancel::Clock::now() + 1'200'000ms, "the step's");
  CHECK(step.deadline() == loop.deadline());
  CHECK(step.wait_slice(1000ms) == 1000ms);
  std::thread canceller([&] {
    std::this_thread::sleep_for(20ms);
    run.cancel();
  });
  CHECK_FALSE(step.sleep_for(600'000ms));
  canceller.join();
  CHECK(loop.stopped());
  CHECK(stopped_error(step).kind() == ErrorKind::RunCancelled);  // cancelled, though it has a deadline too
}
