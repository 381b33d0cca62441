// How every endpoint of the server starts a run: admitted under the slots or refused, a batch all or nothing, a
// run's deadline, an exception answered, and every slot given back.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>

#include "engine/server/run_launcher.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::server;
using namespace std::chrono_literals;

namespace {

// What an endpoint was told, and a run's answer, counted.
struct Told {
  std::atomic<int> busy{0}, no_memory{0}, failed{0}, ran{0};
  std::mutex mu;
  std::string failure;
  RunLauncher::Refusals refusals() {
    return {.busy = [this] { ++busy; },
            .no_memory = [this] { ++no_memory; },
            .failed =
                [this](const std::exception& e) {
                  std::lock_guard lock(mu);
                  failure = e.what();
                  ++failed;
                }};
  }
};

// A launcher over a pool of two threads and the slots given, and what its endpoint was told.
struct Launcher {
  FiberPool pool{2};
  RunSlots slots;
  RunLauncher runs;
  Told told;
  Launcher(size_t in_flight, size_t queued, std::chrono::seconds timeout)
      : slots(in_flight, queued), runs(pool, slots, timeout) {}
  ~Launcher() { pool.join(); }
  // Whether every slot is given back (waited for: a run gives its slot back as its fiber ends).
  bool idle() {
    return test::wait_until([&] { return slots.running() == 0 && slots.waiting() == 0; });
  }
};

}  // namespace

TEST_CASE("run launcher: a run past the slots and the queue is refused at once, and a run that throws is answered",
          "[server][runs]") {
  Launcher l(1, 0, 60s);
  RunLauncher& runs = l.runs;
  Told& told = l.told;
  Cancel hold;
  // The one slot taken by a run that waits until the test lets it go.
  REQUIRE(runs.start(nullptr, [&](const Cancel&, const auto&) { test::wait_until([&] { return hold.stopped(); }); ++told.ran; },
                     told.refusals()));
  CHECK_FALSE(runs.start(nullptr, [&](const Cancel&, const auto&) { ++told.ran; }, told.refusals()));
  CHECK(told.busy == 1);
  hold.cancel();
  REQUIRE(l.idle());
  REQUIRE(runs.start(nullptr, [](const Cancel&, const auto&) { throw std::runtime_error("a bug in the run"); }, told.refusals()));
  REQUIRE(test::wait_until([&] { return told.failed == 1; }));
  CHECK(told.failure == "a bug in the run");
  CHECK(l.idle());
  CHECK(told.ran == 1);
}

TEST_CASE("run launcher: a run gives its slot back once it has run, so the request its answer prompts is admitted",
          "[server][runs]") {
  Launcher l(1, 0, 60s);
  RunLauncher& runs = l.runs;
  Told& told = l.told;
  std::atomic<bool> next_admitted{false};
  REQUIRE(runs.start(nullptr,
                     [&](const Cancel&, const std::function<void()>& ran) {
                       ran();
                       ran();  // once is what counts: the slot is given back once
                       // Here the endpoint answers; its caller, reading the answer, asks again at once.
                       next_admitted = runs.start(nullptr, [&](const Cancel&, const auto&) { ++told.ran; }, told.refusals());
                     },
                     told.refusals()));
  REQUIRE(test::wait_until([&] { return told.ran == 1 || told.busy == 1; }));
  REQUIRE(l.idle());
  CHECK(next_admitted);
  CHECK(told.busy == 0);
  CHECK(told.ran == 1);
}

TEST_CASE("run launcher: a run stops with its caller, and at the server's time limit with a message naming it",
          "[server][runs]") {
  Launcher l(4, 4, 1s);
  RunLauncher& runs = l.runs;
  Told& told = l.told;
  Cancel caller;
  std::atomic<bool> caller_stopped{false}, timed_out{false};
  std::string why;
  runs.start(&caller, [&](const Cancel& c, const auto&) { caller_stopped = test::wait_until([&] { return c.stopped(); }); },
             told.refusals());
  caller.cancel();
  CHECK(test::wait_until([&] { return caller_stopped.load(); }));
  runs.start(nullptr,
             [&](const Cancel& c, const auto&) {
               test::wait_until([&] { return c.stopped(); });
               why = c.timeout_message();
               timed_out = c.timed_out();
             },
             told.refusals());
  REQUIRE(l.idle());
  CHECK(timed_out);
  CHECK(why == "the run took longer than the server's limit of 1 s (--run-timeout)");
  CHECK(why == runs.timeout_message());
}

TEST_CASE("run launcher: a batch is admitted whole or refused whole, its rows take turns, then it is answered once",
          "[server][runs]") {
  Launcher l(1, 3, 60s);
  RunLauncher& runs = l.runs;
  Told& told = l.told;
  // Five rows do not fit one slot and three places to wait: nothing is started.
  CHECK_FALSE(runs.start_all(nullptr, {.count = 5, .run = [&](size_t, const Cancel&) { ++told.ran; }}, told.refusals()));
  CHECK(told.busy == 1);
  CHECK(l.slots.waiting() == 0);
  // Four do: one at a time, as the one slot allows.
  std::atomic<int> running{0}, most{0}, ends{0};
  std::vector<std::string> failures(4);
  std::mutex mu;
  std::vector<size_t> order;
  bool began = false;
  REQUIRE(runs.start_all(nullptr,
                         {.count = 4,
                          .begin = [&] { began = true; },
                          .run =
                              [&](size_t i, const Cancel&) {
                                int now = ++running;
                                most = std::max(most.load(), now);
                                {
                                  std::lock_guard lock(mu);
                                  order.push_back(i);
                                }
                                --running;
                                if (i == 2) throw std::runtime_error("row two broke");
                              },
                          .failed = [&](size_t i, const std::string& why) { failures[i] = why; },
                          .end = [&] { ++ends; }},
                         told.refusals()));
  REQUIRE(test::wait_until([&] { return ends == 1; }));
  CHECK(began);
  CHECK(order.size() == 4);
  CHECK(most == 1);
  CHECK(failures == std::vector<std::string>{"", "", "the server failed: row two broke", ""});
  CHECK(l.idle());
}
