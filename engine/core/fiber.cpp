#include "engine/core/fiber.h"

#include "engine/core/fiber_context.h"
#include "engine/core/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <new>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define ENGINE_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENGINE_FIBER_ASAN 1
#endif
#endif
#ifdef ENGINE_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace engine {
namespace fiber_detail {

struct Worker;

// What every run's fiber touches of its stack (a batch's runs, measured with mincore: 16 KB each).
constexpr size_t kStackTouched = 16 << 10;

// A fiber's stack: a slot of a StackStore's mapping (below), its pages taken from the system only once touched; the
// lowest page is a guard. A view: the store owns the memory.
class Stack {
 public:
  Stack(char* slot, size_t bytes, size_t page) : base_(slot), size_(bytes), page_(page) {}
  void* bottom() const { return base_ + page_; }
  size_t usable() const { return size_ - page_; }

 private:
  char* base_;
  size_t size_;
  size_t page_;
};

// Where fibers' stacks come from: mappings of several stacks at a time, 4 then twice as many up to 64, unmapped
// together when the pool ends. A thousand fibers cost a few dozen mmap and munmap calls instead of a thousand
// each: at the end of a batch of a thousand runs in flight, unmapping stacks one by one took 43 ms. The top pages
// of a new stack, which every fiber uses, are made present in one call (core/prefault.h): a thousand fibers
// starting together, a batch's first wave, would otherwise take four thousand faults.
class StackStore {
 public:
  explicit StackStore(size_t stack_bytes) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    slot_bytes_ = (stack_bytes + page_ - 1) / page_ * page_ + page_;
  }
  ~StackStore() {
    for (const Block& b : blocks_) {
#ifdef ENGINE_FIBER_ASAN
      // The sanitizer keeps a stack's poison past munmap: the next mapping at these addresses would inherit the
      // frames its last fiber never returned from.
      __asan_unpoison_memory_region(b.base, b.bytes);
#endif
      munmap(b.base, b.bytes);
    }
  }
  StackStore(const StackStore&) = delete;
  StackStore& operator=(const StackStore&) = delete;

  // A new stack; from any thread.
  Stack take() {
    char* slot = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (blocks_.empty() || used_ == blocks_.back().slots) {
        size_t slots = blocks_.empty() ? 4 : std::min<size_t>(blocks_.back().slots * 2, 64);
        void* p = mmap(nullptr, slots * slot_bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        blocks_.push_back({static_cast<char*>(p), slots * slot_bytes_, slots});
        used_ = 0;
      }
      slot = blocks_.back().base + used_++ * slot_bytes_;
    }
    mprotect(slot, page_, PROT_NONE);
    size_t touched = std::min(kStackTouched, slot_bytes_ - page_);
    prefault(slot + slot_bytes_ - touched, touched);
    return Stack(slot, slot_bytes_, page_);
  }

 private:
  struct Block {
    char* base;
    size_t bytes;
    size_t slots;
  };
  size_t page_ = 0;
  size_t slot_bytes_ = 0;
  std::mutex mutex_;  // guards the blocks and used_
  std::vector<Block> blocks_;
  size_t used_ = 0;  // slots handed out of the last block
};

enum class FiberState { Ready, Running, Parked, Done };

struct Fiber {
  Fiber(Worker& w, Stack s, std::function<void()> b) : worker(w), stack(s), body(std::move(b)) {}
  Worker& worker;
  Stack stack;
  std::function<void()> body;
  Context context;
  FiberState state = FiberState::Ready;
  std::optional<SteadyTime> deadline;  // while parked with one, its place in the worker's timers
  std::mutex* release_after_switch = nullptr;  // the waiter's lock, let go once the fiber is off its thread
  void* asan_fake_stack = nullptr;
};

// One OS thread and the fibers it runs. Its mutex guards everything below it but the context.
struct Worker {
  Pool& pool;
  explicit Worker(Pool& p) : pool(p) {}
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Fiber*> ready;
  std::set<std::pair<SteadyTime, Fiber*>> timers;
  size_t fibers = 0;  // alive on this worker
  std::vector<Stack> spare_stacks;
  bool closing = false;
  Context context;  // the scheduler's, while a fiber runs
  const void* thread_stack = nullptr;  // for the sanitizer's bookkeeping of stack switches
  size_t thread_stack_size = 0;
  std::thread thread;
};

struct Pool {
  explicit Pool(size_t stack_bytes) : stacks(stack_bytes) {}
  FiberPool* owner = nullptr;
  StackStore stacks;  // outlives the workers, whose spare stacks are its slots
  std::vector<std::unique_ptr<Worker>> workers;
  std::mutex mutex;  // guards alive and failure
  std::condition_variable all_ended;
  size_t alive = 0;
  std::exception_ptr failure;
};

namespace {

thread_local Fiber* current_fiber = nullptr;

void start_switch([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                  [[maybe_unused]] size_t size) {
#ifdef ENGINE_FIBER_ASAN
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}

void finish_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** old_bottom,
                   [[maybe_unused]] size_t* old_size) {
#ifdef ENGINE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, old_bottom, old_size);
#endif
}

// Back to the worker's scheduler; returns when the fiber is resumed.
void switch_out(Fiber& f) {
  Worker& w = f.worker;
  start_switch(f.state == FiberState::Done ? nullptr : &f.asan_fake_stack, w.thread_stack, w.thread_stack_size);
  switch_context(f.context, w.context);
  finish_switch(f.asan_fake_stack, nullptr, nullptr);
}

void fiber_main() {
  Fiber& f = *current_fiber;
  finish_switch(nullptr, &f.worker.thread_stack, &f.worker.thread_stack_size);
  try {
    f.body();
  } catch (...) {
    std::lock_guard lock(f.worker.pool.mutex);
    if (!f.worker.pool.failure) f.worker.pool.failure = std::current_exception();
  }
  f.body = nullptr;  // what it captured goes while the fiber can still run destructors
  f.state = FiberState::Done;
  switch_out(f);  // never returns: a done fiber is not resumed
}

// Makes a parked fiber runnable; called with its worker's mutex held.
void make_ready(Fiber& f) {
  if (f.state != FiberState::Parked) return;
  if (f.deadline) f.worker.timers.erase({*f.deadline, &f});
  f.deadline.reset();
  f.state = FiberState::Ready;
  f.worker.ready.push_back(&f);
}

void finished(Worker& w, Fiber* f) {
  {
    std::lock_guard lock(w.mutex);
    w.spare_stacks.push_back(f->stack);
    --w.fibers;
  }
  delete f;
  Pool& pool = w.pool;
  std::lock_guard lock(pool.mutex);
  if (--pool.alive == 0) pool.all_ended.notify_all();
}

void serve(Worker& w) {
  std::unique_lock lock(w.mutex);
  for (;;) {
    auto now = std::chrono::steady_clock::now();
    while (!w.timers.empty() && w.timers.begin()->first <= now) make_ready(*w.timers.begin()->second);
    if (w.ready.empty()) {
      if (w.closing && w.fibers == 0) return;
      if (w.timers.empty()) {
        w.wake.wait(lock);
      } else {
        SteadyTime next = w.timers.begin()->first;  // a copy: the wait reads it again after others changed the set
        w.wake.wait_until(lock, next);
      }
      continue;
    }
    Fiber* f = w.ready.front();
    w.ready.pop_front();
    f->state = FiberState::Running;
    lock.unlock();
    current_fiber = f;
    void* fake_stack = nullptr;
    start_switch(&fake_stack, f->stack.bottom(), f->stack.usable());
    switch_context(w.context, f->context);
    finish_switch(fake_stack, nullptr, nullptr);
    current_fiber = nullptr;
    if (f->release_after_switch) std::exchange(f->release_after_switch, nullptr)->unlock();
    if (f->state == FiberState::Done) finished(w, f);
    lock.lock();
  }
}

// Parks the current fiber until make_ready (a signal, or its deadline); `held` is released once the fiber is off
// its thread, so a signaller holding it cannot find the fiber half parked, and taken again on return.
void park(std::unique_lock<std::mutex>& held, std::optional<SteadyTime> deadline) {
  Fiber& f = *current_fiber;
  {
    std::lock_guard lock(f.worker.mutex);
    f.state = FiberState::Parked;
    f.deadline = deadline;
    if (deadline) f.worker.timers.insert({*deadline, &f});
  }
  std::mutex* m = held.release();
  f.release_after_switch = m;
  switch_out(f);
  held = std::unique_lock(*m);
}

void start_context(Fiber& f, [[maybe_unused]] bool reused_stack) {
#ifdef ENGINE_FIBER_ASAN
  // A reused stack still has the poison of the frames its last fiber never returned from.
  if (reused_stack) __asan_unpoison_memory_region(f.stack.bottom(), f.stack.usable());
#endif
  make_context(f.context, f.stack.bottom(), f.stack.usable(), fiber_main);
}

// The fiber that may step aside here, if any: not inside a catch block or an unwinding (see fiber.h).
Fiber* suspendable() {
  if (!current_fiber || std::uncaught_exceptions() > 0 || std::current_exception()) return nullptr;
  return current_fiber;
}

}  // namespace
}  // namespace fiber_detail

using namespace fiber_detail;

FiberPool::FiberPool(size_t threads, size_t stack_bytes) : pool_(std::make_unique<Pool>(stack_bytes)) {
  pool_->owner = this;
  threads = std::max<size_t>(1, threads);
  for (size_t i = 0; i < threads; ++i) pool_->workers.push_back(std::make_unique<Worker>(*pool_));
  try {
    for (auto& w : pool_->workers) w->thread = std::thread([w = w.get()] { serve(*w); });
  } catch (...) {  // no thread to be had: the ones started end before the pool goes (no fiber is on them yet)
    close_workers();
    throw;
  }
}

void FiberPool::close_workers() {
  for (auto& w : pool_->workers) {
    {
      std::lock_guard lock(w->mutex);
      w->closing = true;
    }
    w->wake.notify_all();
  }
  for (auto& w : pool_->workers)
    if (w->thread.joinable()) w->thread.join();
}

size_t FiberPool::threads_for(size_t fibers) {
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min(fibers, cores));
}

FiberPool::~FiberPool() {
  try {
    join();
  } catch (...) {  // the owner did not join; what escaped its fibers has nowhere to go
  }
  close_workers();
}

void FiberPool::spawn(std::function<void()> body) {
  Worker* w = pool_->workers.front().get();
  // The least busy thread: fibers stay where they start, so a batch spreads its runs as it launches them.
  size_t least = SIZE_MAX;
  for (auto& candidate : pool_->workers) {
    std::lock_guard lock(candidate->mutex);
    if (candidate->fibers < least) least = candidate->fibers, w = candidate.get();
  }
  std::optional<Stack> stack;
  {
    std::lock_guard lock(w->mutex);
    if (!w->spare_stacks.empty()) {
      stack = w->spare_stacks.back();
      w->spare_stacks.pop_back();
    }
  }
  bool reused = stack.has_value();
  // A new stack is made outside the worker's lock: its thread goes on running fibers meanwhile. It may fail (no
  // address space left under `ulimit -v`): nothing is counted yet, so join() never waits for a fiber that is not.
  if (!reused) stack = pool_->stacks.take();
  Fiber* f = nullptr;
  try {
    f = new Fiber(*w, *stack, std::move(body));
  } catch (...) {
    std::lock_guard lock(w->mutex);
    w->spare_stacks.push_back(*stack);
    throw;
  }
  start_context(*f, reused);
  {
    std::lock_guard lock(pool_->mutex);
    ++pool_->alive;
  }
  std::lock_guard lock(w->mutex);
  ++w->fibers;
  w->ready.push_back(f);
  w->wake.notify_one();
}

void FiberPool::join() {
  std::unique_lock lock(pool_->mutex);
  pool_->all_ended.wait(lock, [&] { return pool_->alive == 0; });
  if (pool_->failure) std::rethrow_exception(std::exchange(pool_->failure, nullptr));
}

FiberPool* FiberPool::current() { return current_fiber ? current_fiber->worker.pool.owner : nullptr; }

bool Wakeup::wait_until(std::optional<SteadyTime> deadline) {
  std::unique_lock lock(mutex_);
  while (!signalled_) {
    if (deadline && std::chrono::steady_clock::now() >= *deadline) return false;
    if (Fiber* f = suspendable()) {
      parked_ = f;
      park(lock, deadline);
      parked_ = nullptr;
    } else if (deadline) {
      cv_.wait_until(lock, *deadline);
    } else {
      cv_.wait(lock);
    }
  }
  return true;
}

void Wakeup::signal() {
  // Under the lock: the waiter cannot leave (and its Wakeup cannot end) before its fiber is marked ready.
  std::lock_guard lock(mutex_);
  signalled_ = true;
  if (parked_) {
    std::lock_guard worker_lock(parked_->worker.mutex);
    make_ready(*parked_);
    parked_->worker.wake.notify_one();
    parked_ = nullptr;
  }
  cv_.notify_all();
}

void Condition::wait_until(std::unique_lock<std::mutex>& lock, std::optional<SteadyTime> deadline) {
  Waiter me;
  {
    std::lock_guard guard(mutex_);
    waiters_.push_back(&me);
  }
  lock.unlock();
  me.wakeup.wait_until(deadline);
  {
    std::lock_guard guard(mutex_);
    if (!me.notified) waiters_.remove(&me);  // a notify takes the waiters it signals off the list
  }
  lock.lock();
}

void Condition::notify_one() {
  std::lock_guard guard(mutex_);
  if (waiters_.empty()) return;
  Waiter* w = waiters_.front();
  waiters_.pop_front();
  w->notified = true;
  w->wakeup.signal();
}

void Condition::notify_all() {
  std::lock_guard guard(mutex_);
  for (Waiter* w : waiters_) {
    w->notified = true;
    w->wakeup.signal();
  }
  waiters_.clear();
}

void sleep_until(SteadyTime until) {
  Wakeup never;
  never.wait_until(until);
}

void TaskGroup::spawn(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    ++running_;
  }
  auto run = [this, task = std::move(task)] {
    task();
    std::lock_guard lock(mutex_);
    --running_;
    ended_.notify_all();  // under the lock: once it is let go, join() may return and the group end
  };
  try {
    if (FiberPool* pool = FiberPool::current()) {
      pool->spawn(std::move(run));
    } else {
      std::lock_guard lock(mutex_);
      threads_.emplace_back(std::move(run));
    }
  } catch (...) {  // no stack or thread for it: it never runs, and join() must not wait for it
    std::lock_guard lock(mutex_);
    --running_;
    throw;
  }
}

void TaskGroup::join() {
  {
    std::unique_lock lock(mutex_);
    ended_.wait(lock, [&] { return running_ == 0; });
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace engine
