#pragma once
// The run store's writes off the threads that run workflows: a run that ends is handed to a queue and its thread goes
// on at once; one thread of the writer's own writes what is waiting, the runs that ended meanwhile in one
// transaction. No thread that runs workflows waits on SQLite (docs/architecture.md, "Threads"). Handing over never
// waits (it is done where events are delivered, maybe under a sink's lock, where a fiber must not park): past
// `max_queued` runs waiting, a run is not recorded, and failure() says so. What reads the store next waits for the
// writes first (flush(): a batch's results line, a command's end), or is handed to the writer's thread to run after
// them (read(): the runs API, whose requests then hold no thread of the server's while SQLite works).
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/fiber.h"
#include "engine/store/run_store.h"

namespace engine::store {

class RunWriter {
 public:
  // `store` must outlive the writer. `max_queued`: runs waiting to be written past which a submit waits.
  explicit RunWriter(RunStore& store, size_t max_queued);
  ~RunWriter();  // writes what is queued, then its thread ends
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // From any thread or fiber, never waiting. False when the queue is full (the run is not recorded).
  bool submit(RunRecord run);
  // Until every run submitted so far is written or has failed to be. A fiber waits without its thread: call it
  // holding no lock.
  void flush();
  // Runs `read` on the writer's thread once every run submitted before it is written (or has failed to be), and
  // returns at once. `read` gives its result to whoever asked (an Exchange answers from any thread); what it throws
  // is dropped. Reads queued before the writer is destroyed still run.
  using Read = std::function<void(RunStore&)>;
  void read(Read read);
  std::string failure() const;  // why the first run that could not be written was not, or ""
  size_t written() const;
  RunStore& store() { return store_; }

 private:
  void write_queued();  // the writer thread
  // The runs in one transaction, or each alone when that fails; how many were written, and why one was not.
  size_t write(const std::vector<RunRecord>& batch, std::string& why);

  RunStore& store_;
  const size_t max_queued_;
  mutable std::mutex mu_;
  Condition changed_;  // a run queued, a batch written, the end
  std::deque<RunRecord> queue_;
  std::deque<Read> reads_;  // run after the runs queued with them
  size_t submitted_ = 0;  // runs ever submitted
  size_t done_ = 0;       // of those, written or failed
  size_t written_ = 0;
  bool stopping_ = false;
  std::string failure_;
  std::thread thread_;
};

}  // namespace engine::store
