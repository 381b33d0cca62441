#pragma once
// Work that blocks its thread (a SQLite query, an index brought up to date) kept off the fibers' threads: a fiber
// that hands work here parks until it is done, while the few threads that carry every fiber go on with the others.
// One thread, started with the first work handed over, does the work in order; an ordinary thread does its own.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace engine {

class BlockingWorker {
 public:
  BlockingWorker() = default;
  ~BlockingWorker();  // does what was handed over, then its thread ends
  BlockingWorker(const BlockingWorker&) = delete;
  BlockingWorker& operator=(const BlockingWorker&) = delete;

  // Runs `work` and returns when it has ended, rethrowing what it threw: on this worker's thread when called from a
  // fiber, else on the calling thread.
  void run(const std::function<void()>& work);

 private:
  struct Job;
  void serve();

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Job*> jobs_;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace engine
