#include "engine/core/blocking_worker.h"

#include <exception>

#include "engine/core/fiber.h"

namespace engine {

struct BlockingWorker::Job {
  const std::function<void()>* work;
  std::exception_ptr failed;
  Wakeup done;
};

BlockingWorker::~BlockingWorker() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  ready_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BlockingWorker::run(const std::function<void()>& work) {
  if (!FiberPool::current()) return work();
  Job job{&work, nullptr, {}};
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
    jobs_.push_back(&job);
  }
  ready_.notify_one();
  job.done.wait_until();
  if (job.failed) std::rethrow_exception(job.failed);
}

void BlockingWorker::serve() {
  std::unique_lock lock(mu_);
  for (;;) {
    ready_.wait(lock, [&] { return closing_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // closing, and every job done
    Job* job = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    try {
      (*job->work)();
    } catch (...) {
      job->failed = std::current_exception();
    }
    job->done.signal();  // the job lives on the fiber's stack: not touched after this
    lock.lock();
  }
}

}  // namespace engine
