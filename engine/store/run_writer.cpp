#include "engine/store/run_writer.h"

#include <csignal>
#include <exception>
#include <memory>
#include <vector>

#include "engine/core/error.h"

namespace engine::store {

RunWriter::RunWriter(RunStore& store, size_t max_queued, size_t die_at_entry)
    : store_(store),
      max_queued_(max_queued == 0 ? 1 : max_queued),
      die_at_entry_(die_at_entry),
      thread_([this] { write_queued(); }) {}

RunWriter::~RunWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool RunWriter::submit(RunRecord run) {
  std::unique_lock lock(mu_);
  if (queue_.size() >= max_queued_) {
    if (failure_.empty())
      failure_ = "the store's writer had " + std::to_string(max_queued_) + " runs waiting, and run " + run.id +
                 " could not wait with them";
    return false;
  }
  queue_.push_back(std::move(run));
  ++submitted_;
  lock.unlock();
  changed_.notify_all();
  return true;
}

void RunWriter::flush() {
  std::unique_lock lock(mu_);
  size_t target = submitted_, journal_target = journal_submitted_;
  changed_.wait(lock, [&] { return done_ >= target && journal_done_ >= journal_target; });
}

void RunWriter::read(Read read) {
  {
    std::lock_guard lock(mu_);
    reads_.push_back(std::move(read));
  }
  changed_.notify_all();
}

void RunWriter::read_waiting(const Read& read) {
  struct Outcome {
    bool done = false;
    std::exception_ptr error;
  };
  auto outcome = std::make_shared<Outcome>();
  this->read([this, &read, outcome](RunStore& store) {
    std::exception_ptr error;
    try {
      read(store);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      outcome->error = error;
      outcome->done = true;
    }
    changed_.notify_all();
  });
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return outcome->done; });
  if (outcome->error) std::rethrow_exception(outcome->error);
}

size_t RunWriter::submit_journal(JournalWrite write) {
  std::unique_lock lock(mu_);
  journal_.push_back(std::move(write));
  size_t ticket = ++journal_submitted_;
  lock.unlock();
  changed_.notify_all();
  return ticket;
}

void RunWriter::wait_journal(size_t ticket) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return journal_done_ >= ticket; });
  if (!journal_failure_.empty()) throw Error(ErrorKind::StoreFailed, "the journal could not be written: " + journal_failure_);
}

std::string RunWriter::write_journal(std::vector<JournalWrite>& batch) {
  bool die = false;
  if (die_at_entry_ > 0) {  // cut the batch just before the entry to die at
    for (size_t g = 0; g < batch.size() && !die; ++g) {
      auto& entries = batch[g].entries;
      if (entries_written_ + entries.size() < die_at_entry_) {
        entries_written_ += entries.size();
        continue;
      }
      entries.resize(die_at_entry_ - 1 - entries_written_);
      batch[g].state.reset();
      batch.resize(g + 1);
      die = true;
    }
  }
  try {
    store_.append_journal(batch);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (die) ::raise(SIGKILL);
  return "";
}

std::string RunWriter::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

size_t RunWriter::written() const {
  std::lock_guard lock(mu_);
  return written_;
}

size_t RunWriter::write(const std::vector<RunRecord>& batch, std::string& why) {
  auto attempt = [&](std::span<const RunRecord> runs) {
    try {
      store_.record_all(runs);
      return true;
    } catch (const Error& e) {
      if (why.empty()) why = e.message();
      return false;
    } catch (const std::exception& e) {
      if (why.empty()) why = e.what();
      return false;
    }
  };
  if (attempt(batch)) return batch.size();
  if (batch.size() == 1) return 0;
  // One run the store refuses must not cost the runs that ended beside it: each is tried alone.
  why.clear();
  size_t written = 0;
  for (const RunRecord& run : batch) written += attempt(std::span<const RunRecord>(&run, 1)) ? 1 : 0;
  return written;
}

void RunWriter::write_queued() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return !queue_.empty() || !reads_.empty() || !journal_.empty() || stopping_; });
    if (queue_.empty() && reads_.empty() && journal_.empty()) return;  // stopping, and everything written and read
    std::vector<RunRecord> batch(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
    // After the runs: a journal marked ended names a run whose record is written (RunStore's pruning reads both).
    std::vector<JournalWrite> journal(std::make_move_iterator(journal_.begin()), std::make_move_iterator(journal_.end()));
    journal_.clear();
    // Taken with the runs: every run submitted before a read is in this batch or an earlier one.
    std::deque<Read> reads = std::move(reads_);
    reads_.clear();
    lock.unlock();
    changed_.notify_all();  // room in the queue
    std::string why;
    size_t written = batch.empty() ? 0 : write(batch, why);
    size_t journaled = journal.size();
    std::string journal_why = journal.empty() ? "" : write_journal(journal);
    lock.lock();
    journal_done_ += journaled;
    if (!journal_why.empty() && journal_failure_.empty()) journal_failure_ = journal_why;
    done_ += batch.size();
    written_ += written;
    if (!why.empty() && failure_.empty()) failure_ = why;
    lock.unlock();
    changed_.notify_all();
    for (Read& read : reads) {
      try {
        read(store_);
      } catch (...) {  // the read answers for itself; the writer goes on
      }
    }
    lock.lock();
  }
}

}  // namespace engine::store
