// Fibers: many waits on few threads, woken from anywhere, at their deadlines, and the same code on a plain thread.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <set>
#include <thread>

#include "engine/core/cancel.h"
#include "engine/core/error.h"
#include "engine/core/fiber.h"

using namespace engine;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

size_t thread_count_seen(const std::vector<std::thread::id>& ids) {
  return std::set<std::thread::id>(ids.begin(), ids.end()).size();
}

}  // namespace

TEST_CASE("fiber: a thousand fibers on two threads all wait at once", "[core][fiber]") {
  // Each fiber waits until all thousand are waiting: with waits that held their thread, two would wait and the rest
  // never start, and the minute's deadline would end them short of a thousand. What each keeps on its stack over
  // the wait is still its own after it: the stacks, carved many to a mapping, do not overlap.
  FiberPool pool(2);
  std::mutex mutex;
  Condition arrived;
  int waiting = 0, most_waiting = 0, done = 0, intact = 0;
  std::vector<std::thread::id> ids;
  auto deadline = Clock::now() + 60s;
  for (int i = 0; i < 1000; ++i)
    pool.spawn([&, i] {
      std::array<int, 256> mine;
      mine.fill(i);
      std::unique_lock lock(mutex);
      most_waiting = std::max(most_waiting, ++waiting);
      arrived.notify_all();
      while (most_waiting < 1000 && Clock::now() < deadline) arrived.wait_until(lock, deadline);
      ++done;
      if (std::count(mine.begin(), mine.end(), i) == 256) ++intact;
      ids.push_back(std::this_thread::get_id());
    });
  pool.join();
  CHECK(done == 1000);
  CHECK(intact == 1000);
  CHECK(most_waiting == 1000);
  CHECK(thread_count_seen(ids) <= 2);
}

TEST_CASE("fiber: a thousand sleeps end, each on its fiber's thread", "[core][fiber]") {
  FiberPool pool(2);
  std::atomic<int> woke{0};
  for (int i = 0; i < 1000; ++i)
    pool.spawn([&] {
      sleep_until(Clock::now() + 20ms);
      ++woke;
    });
  pool.join();
  CHECK(woke == 1000);
}

TEST_CASE("fiber: a fiber stays on its thread across waits", "[core][fiber]") {
  FiberPool pool(2);
  std::atomic<int> moved{0};
  for (int i = 0; i < 50; ++i)
    pool.spawn([&] {
      auto id = std::this_thread::get_id();
      for (int n = 0; n < 5; ++n) {
        sleep_until(Clock::now() + 1ms);
        if (std::this_thread::get_id() != id) ++moved;
      }
    });
  pool.join();
  CHECK(moved == 0);
}

TEST_CASE("fiber: a wakeup signalled from a plain thread resumes the fiber, and one signalled first does not wait",
          "[core][fiber]") {
  FiberPool pool(1);
  Wakeup from_thread, early;
  early.signal();
  std::atomic<bool> got_thread{false}, got_early{false};
  pool.spawn([&] { got_early = early.wait_until(); });
  pool.spawn([&] { got_thread = from_thread.wait_until(Clock::now() + 600s); });
  std::thread signaller([&] {
    std::this_thread::sleep_for(20ms);
    from_thread.signal();
  });
  pool.join();
  signaller.join();
  CHECK(got_early);
  CHECK(got_thread);
}

TEST_CASE("fiber: a wakeup not signalled ends at its deadline, on a fiber and on a thread", "[core][fiber]") {
  FiberPool pool(1);
  std::atomic<bool> on_fiber{true};
  pool.spawn([&] {
    Wakeup never;
    on_fiber = never.wait_until(Clock::now() + 10ms);
  });
  pool.join();
  CHECK_FALSE(on_fiber);
  Wakeup never;
  CHECK_FALSE(never.wait_until(Clock::now() + 10ms));
}

TEST_CASE("fiber: a condition hands a place from fiber to fiber on one thread without deadlock", "[core][fiber]") {
  // One thread, two places, twenty fibers that hold a place across a sleep: a blocking wait would deadlock here.
  FiberPool pool(1);
  std::mutex mutex;
  Condition freed;
  int used = 0, most = 0, done = 0;
  for (int i = 0; i < 20; ++i)
    pool.spawn([&] {
      {
        std::unique_lock lock(mutex);
        freed.wait(lock, [&] { return used < 2; });
        ++used;
        most = std::max(most, used);
      }
      sleep_until(Clock::now() + 2ms);
      std::lock_guard lock(mutex);
      --used;
      ++done;
      freed.notify_one();
    });
  pool.join();
  CHECK(done == 20);
  CHECK(most == 2);
}

TEST_CASE("fiber: a cancel wakes a fiber's sleep at once", "[core][fiber]") {
  FiberPool pool(1);
  Cancel cancel;
  std::atomic<bool> went_on{true};
  pool.spawn([&] { went_on = cancel.sleep_for(600'000ms); });
  std::this_thread::sleep_for(20ms);
  cancel.cancel();
  pool.join();  // would hang for ten minutes if the cancel did not wake the fiber
  CHECK_FALSE(went_on);
}

TEST_CASE("fiber: a wait inside a catch block still ends, blocking its thread instead of stepping aside",
          "[core][fiber]") {
  FiberPool pool(1);
  std::atomic<int> ended{0};
  for (int i = 0; i < 3; ++i)
    pool.spawn([&] {
      try {
        throw Error(ErrorKind::ToolError, "on a fiber");
      } catch (const Error& e) {
        sleep_until(Clock::now() + 5ms);
        if (e.kind() == ErrorKind::ToolError) ++ended;
      }
    });
  pool.join();
  CHECK(ended == 3);
}

TEST_CASE("fiber: join rethrows what escaped a fiber, after the others have ended", "[core][fiber]") {
  FiberPool pool(2);
  std::atomic<int> ended{0};
  pool.spawn([] { throw Error(ErrorKind::ToolTimeout, "out of a fiber"); });
  for (int i = 0; i < 10; ++i)
    pool.spawn([&] {
      sleep_until(Clock::now() + 5ms);
      ++ended;
    });
  try {
    pool.join();
    FAIL("join did not rethrow");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::ToolTimeout);
  }
  CHECK(ended == 10);
}

TEST_CASE("fiber: a task group runs beside the caller on fibers of its pool, or on threads off one",
          "[core][fiber]") {
  std::atomic<int> on_pool{0}, ran{0};
  FiberPool pool(1);
  pool.spawn([&] {
    TaskGroup group;
    for (int i = 0; i < 8; ++i)
      group.spawn([&] {
        if (FiberPool::current() != nullptr) ++on_pool;
        sleep_until(Clock::now() + 5ms);
        ++ran;
      });
    group.join();
  });
  pool.join();
  CHECK(on_pool == 8);
  CHECK(ran == 8);

  TaskGroup off_pool;
  for (int i = 0; i < 4; ++i) off_pool.spawn([&] { ++ran; });
  off_pool.join();
  CHECK(ran == 12);
  CHECK(FiberPool::current() == nullptr);
}

TEST_CASE("fiber: a deep stack of frames fits a fiber's stack", "[core][fiber]") {
  // About 400 KB of frames: what nested templates or a Lua tool at its C-call limit may use.
  std::function<int(int)> deep = [&](int n) -> int {
    volatile char frame[1024];
    frame[0] = static_cast<char>(n);
    return n == 0 ? frame[0] : deep(n - 1) + (n != 0);
  };
  FiberPool pool(1);
  int result = -1;
  pool.spawn([&] { result = deep(400); });
  pool.join();
  CHECK(result == 400);
}

// Under an address-space limit (`ulimit -v`) a stack may not be had: spawn says so, and join() never waits for the
// fiber that was not made.
TEST_CASE("fiber: a spawn that gets no stack throws bad_alloc, and join returns at once", "[core][fiber]") {
  FiberPool pool(1, size_t{1} << 46);  // four stacks of 64 TiB: more than any address space holds
  CHECK_THROWS_AS(pool.spawn([] {}), std::bad_alloc);
  pool.join();
}
