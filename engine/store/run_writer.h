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
  // `die_at_entry` (tests only, ENGINE_JOURNAL_DIE_AT): the process kills itself with SIGKILL just before the
  // journal entry of that number (from 1, counting every journal this writer writes) would be written, the ones
  // before it committed; 0: never. The kill-anywhere test crashes a run at each write in turn this way.
  explicit RunWriter(RunStore& store, size_t max_queued, size_t die_at_entry = 0);
  ~RunWriter();  // writes what is queued, then its thread ends
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // From any thread or fiber, never waiting. False when the queue is full (the run is not recorded).
  bool submit(RunRecord run);
  // Until every run and journal write submitted so far is written or has failed to be. A fiber waits without its
  // thread: call it holding no lock.
  void flush();
  // Runs `read` on the writer's thread once every run submitted before it is written (or has failed to be), and
  // returns at once. `read` gives its result to whoever asked (an Exchange answers from any thread); what it throws
  // is dropped. Reads queued before the writer is destroyed still run.
  using Read = std::function<void(RunStore&)>;
  void read(Read read);
  // The same, waiting until `read` has run (a fiber waits without its thread; hold no lock); rethrows what it threw.
  // For a run's fiber that must know what the store holds before it goes on.
  void read_waiting(const Read& read);
  // Journal writes (core/journal.h), in the order given and after the runs submitted before them. Never waits;
  // returns the write's ticket, which wait_journal() takes.
  size_t submit_journal(JournalWrite write);
  // Until the journal write `ticket` and every one before it are on disk (a fiber waits without its thread; hold no
  // lock). Throws Error "store.failed" when a journal write failed: a run must not start an effect whose intent
  // may not be on disk.
  void wait_journal(size_t ticket);

  std::string failure() const;  // why the first run that could not be written was not, or ""
  size_t written() const;
  RunStore& store() { return store_; }

 private:
  void write_queued();  // the writer thread
  // The runs in one transaction, or each alone when that fails; how many were written, and why one was not.
  size_t write(const std::vector<RunRecord>& batch, std::string& why);
  // The journal writes in one transaction; why they were not, or "".
  std::string write_journal(std::vector<JournalWrite>& batch);

  RunStore& store_;
  const size_t max_queued_;
  mutable std::mutex mu_;
  Condition changed_;  // a run queued, a batch written, the end
  std::deque<RunRecord> queue_;
  std::deque<Read> reads_;  // run after the runs queued with them
  std::deque<JournalWrite> journal_;
  size_t journal_submitted_ = 0, journal_done_ = 0;
  std::string journal_failure_;  // the first journal write that failed: every later wait throws it
  const size_t die_at_entry_;
  size_t entries_written_ = 0;  // journal entries, by the writer thread
  size_t submitted_ = 0;  // runs ever submitted
  size_t done_ = 0;       // of those, written or failed
  size_t written_ = 0;
  bool stopping_ = false;
  std::string failure_;
  std::thread thread_;
};

}  // namespace engine::store
