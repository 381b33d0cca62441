#include "engine/workflow/worker_pool.h"

namespace engine::workflow {

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (auto& w : workers_) w.join();
}

void WorkerPool::run(std::function<void()> task) {
  std::lock_guard lock(mutex_);
  tasks_.push_back(std::move(task));
  if (waiting_ >= tasks_.size()) {
    work_.notify_one();
    return;
  }
  try {
    workers_.emplace_back([this] { serve(); });
  } catch (...) {  // no thread to be had: the task is not left waiting for a worker that will never come
    tasks_.pop_back();
    throw;
  }
}

size_t WorkerPool::size() const {
  std::lock_guard lock(mutex_);
  return workers_.size();
}

size_t WorkerPool::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_;
}

void WorkerPool::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++waiting_;
    work_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    --waiting_;
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace engine::workflow
