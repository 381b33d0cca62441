#pragma once
// Fibers: runs that wait (for a model's answer, a rate limit's turn, a retry's backoff) without holding an OS thread.
// A FiberPool runs many fibers on a few threads; a fiber that waits through Wakeup or Condition steps aside and its
// thread runs another. Code not on a fiber waits the ordinary way, so the same run code serves `engine run` on its
// own thread and a batch of a thousand runs in flight on two threads (docs/architecture.md, "Runs in flight").
//
// Rules for code that may run on a fiber: a fiber never migrates between threads, so thread_locals stay its own
// between waits; it must not wait while holding a std::mutex another fiber could want (the waits here release the
// caller's lock); and a wait inside a catch block blocks the thread instead of stepping aside, because the
// exceptions being handled are kept per thread and two fibers' catch blocks must not interleave.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/core/limits.h"

namespace engine {

namespace fiber_detail {
struct Fiber;
struct Pool;
}  // namespace fiber_detail

using SteadyTime = std::chrono::steady_clock::time_point;

class FiberPool {
 public:
  // A run's deepest stack (Lua at its C-call limit, templates at their nesting limit) uses well under this; pages are
  // taken from the system only when touched, and a guard page below turns an overflow into a fault, not a
  // corruption. The sanitizers' frames are several times larger.
#if defined(__SANITIZE_ADDRESS__)
  static constexpr size_t kDefaultStackBytes = size_t{8} << 20;
#else
  static constexpr size_t kDefaultStackBytes = limits::kFiberStackBytes;
#endif

  // `threads` OS threads (at least one) share the fibers; each fiber has a stack of `stack_bytes`. Throws
  // std::system_error when a thread cannot be started, having ended those that were.
  explicit FiberPool(size_t threads, size_t stack_bytes = kDefaultStackBytes);
  // Threads enough for `fibers` fibers that mostly wait: one per core, fewer when there are fewer fibers.
  static size_t threads_for(size_t fibers);
  ~FiberPool();  // joins: waits for every fiber, as join() does, but drops what escaped them
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  // Runs `body` on a new fiber, on the pool's least busy thread; callable from any thread or fiber. Throws
  // std::bad_alloc when no stack can be had; the pool is then as it was.
  void spawn(std::function<void()> body);
  // Waits until every fiber spawned (including those fibers spawned) has ended, then rethrows the first exception
  // that escaped one. Not from a fiber of this pool.
  void join();

  // The pool the calling fiber runs on, or null on an ordinary thread.
  static FiberPool* current();

 private:
  void close_workers();

  std::unique_ptr<fiber_detail::Pool> pool_;
};

// One signal, waited for by one fiber or thread at a time.
class Wakeup {
 public:
  // Until signal() (true) or `deadline` (false); at once when signal() came first.
  bool wait_until(std::optional<SteadyTime> deadline = std::nullopt);
  void signal();  // from any thread or fiber

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool signalled_ = false;
  fiber_detail::Fiber* parked_ = nullptr;
};

// std::condition_variable for code that may run on a fiber: a waiting fiber releases its thread.
class Condition {
 public:
  // Releases `lock`, waits for a notify (or `deadline`), takes `lock` again. May also return early: wait on a
  // predicate in a loop, as with any condition variable.
  void wait_until(std::unique_lock<std::mutex>& lock, std::optional<SteadyTime> deadline = std::nullopt);
  template <class Pred>
  void wait(std::unique_lock<std::mutex>& lock, Pred done) {
    while (!done()) wait_until(lock);
  }
  void notify_one();
  void notify_all();

 private:
  struct Waiter {
    Wakeup wakeup;
    bool notified = false;  // taken off the list by a notify
  };
  std::mutex mutex_;
  std::list<Waiter*> waiters_;
};

// Sleeps the calling fiber (or thread) until `until`.
void sleep_until(SteadyTime until);

// Runs tasks beside the caller, on fibers of the caller's pool when it runs on one, else on threads of their own;
// join() (or the destructor) waits for them all.
class TaskGroup {
 public:
  TaskGroup() = default;
  ~TaskGroup() { join(); }
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  void spawn(std::function<void()> task);  // `task` must not throw; spawn itself may (no stack or thread), and then
                                           // the group does not wait for it
  void join();

 private:
  std::mutex mutex_;
  Condition ended_;
  size_t running_ = 0;
  std::list<std::thread> threads_;
};

}  // namespace engine
