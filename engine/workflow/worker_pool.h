#pragma once
// Threads kept from one run to the next for the steps that run at once. Starting a thread costs more than a fast
// step, and a batch or a server runs the same workflow again and again: the executor keeps its workers.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace engine::workflow {

class WorkerPool {
 public:
  WorkerPool() = default;
  ~WorkerPool();  // lets the workers finish what they run, then joins them
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` on a waiting worker, or on a new one when none waits: a task never waits for a thread, so tasks
  // that wait for each other cannot deadlock the pool. Workers are kept, as many as were ever busy at once. Throws
  // std::system_error when no thread can be started; the task is then dropped, not run.
  void run(std::function<void()> task);
  size_t size() const;
  size_t waiting() const;  // workers free for a task now (a worker that just finished one is back in a moment)

 private:
  void serve();

  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> workers_;
  size_t waiting_ = 0;
  bool stopping_ = false;
};

}  // namespace engine::workflow
