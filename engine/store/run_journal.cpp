#include "engine/store/run_journal.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/store/digest.h"

namespace engine::store {

RunJournal::RunJournal(RunWriter& writer, JournalRun header, Options options)
    : RunJournal(writer, std::move(header), {}, std::move(options)) {}

RunJournal::RunJournal(RunWriter& writer, JournalRun header, std::vector<StoredEntry> recorded, Options options)
    : writer_(writer), header_(std::move(header)), options_(std::move(options)) {
  for (StoredEntry& e : recorded) {
    next_seq_ = std::max(next_seq_, e.seq + 1);
    // In order: a point written again after a divergence (--allow-changed) holds its latest entry.
    recorded_.insert_or_assign(journal_point(e.entry.path, e.entry.kind, e.entry.key), std::move(e));
  }
  header_.state = JournalState::Running;
  std::vector<StoredEntry> copied;
  if (options_.write_recorded)
    for (const auto& [at, e] : recorded_) copied.push_back(e);
  std::sort(copied.begin(), copied.end(), [](const StoredEntry& a, const StoredEntry& b) { return a.seq < b.seq; });
  if (header_.durability == Durability::Exit) {
    held_ = std::move(copied);
    return;
  }
  std::unique_lock lock(mu_);
  submit_locked(JournalWrite{header_.id, header_, std::move(copied), std::nullopt}, false, lock);
}

RunJournal::~RunJournal() {
  // What was not handed over yet is (a run cut short by an exception); the writer writes it before it stops.
  try {
    std::unique_lock lock(mu_);
    if (!ended_ && header_.durability == Durability::Exit && !held_.empty())
      submit_locked(JournalWrite{header_.id, header_, std::move(held_), std::nullopt}, false, lock);
  } catch (...) {  // a destructor reports nothing
  }
}

void RunJournal::submit_locked(JournalWrite write, bool wait, std::unique_lock<std::mutex>& lock) {
  // Tickets are taken in the order entries were numbered: the lock is held across the submit.
  last_ticket_ = writer_.submit_journal(std::move(write));
  if (!wait) return;
  size_t ticket = last_ticket_;
  lock.unlock();  // a fiber parks in the wait: no lock may be held across it
  writer_.wait_journal(ticket);
  lock.lock();
}

void RunJournal::write(JournalEntry entry) {
  std::unique_lock lock(mu_);
  std::string at = journal_point(entry.path, entry.kind, entry.key);
  // A replayed point: the first pass's entry stands. Past a divergence every point is live, and written again.
  if (!diverged_ && recorded_.count(at)) return;
  entry.asked = entry.asked.empty() ? std::string() : sha256_hex(entry.asked);
  if (options_.secrets && !options_.secrets->empty()) options_.secrets->mask(entry.value);
  StoredEntry stored{next_seq_++, std::move(entry)};
  // An effect that must not be repeated never starts before its intent is on disk, unless the run asked for no
  // journal until its end. A call of effect read is made again when its intent is lost: it need not wait.
  bool must_precede = stored.entry.kind == JournalKind::ToolIntent && stored.entry.value.value("effect", "") != "read";
  bool wait = header_.durability == Durability::Sync || (must_precede && header_.durability == Durability::Async);
  if (header_.durability == Durability::Exit) {
    held_.push_back(std::move(stored));
    return;
  }
  std::vector<StoredEntry> one;
  one.push_back(std::move(stored));
  submit_locked(JournalWrite{header_.id, std::nullopt, std::move(one), std::nullopt}, wait, lock);
}

const JournalEntry* RunJournal::recorded(std::string_view path, JournalKind kind, std::string_view key,
                                         std::string_view asked) {
  std::lock_guard lock(mu_);
  if (diverged_) return nullptr;
  auto it = recorded_.find(journal_point(path, kind, key));
  if (it == recorded_.end()) return nullptr;
  const JournalEntry& e = it->second.entry;
  std::string digest = asked.empty() ? std::string() : sha256_hex(asked);
  if (digest != e.asked) {
    std::string where = std::string(name_of(kind)) + " " + std::string(key) + (path.empty() ? "" : " at " + std::string(path));
    if (!options_.allow_changed)
      throw Error(ErrorKind::JournalDiverged,
                  "run " + header_.id + " now asks something else at " + where +
                      " than its journal recorded: the workflow or its inputs lead elsewhere (--allow-changed goes "
                      "on live from here)");
    diverged_ = true;
    return nullptr;
  }
  ++replayed_;
  return &e;
}

size_t RunJournal::replayed() const {
  std::lock_guard lock(mu_);
  return replayed_;
}

void RunJournal::end(JournalState state) {
  std::unique_lock lock(mu_);
  ended_ = true;
  header_.state = state;
  JournalWrite last{header_.id, std::nullopt, {}, state};
  if (header_.durability == Durability::Exit) {
    last.header = header_;
    last.header->state = JournalState::Running;
    last.entries = std::move(held_);
  }
  // Only sync waits for the end: a run whose end is lost to a crash is resumed, answered whole from its journal
  // and ended then, with no effect made again. The writer writes what it holds before it stops.
  submit_locked(std::move(last), header_.durability == Durability::Sync, lock);
}

}  // namespace engine::store
