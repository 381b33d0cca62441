#pragma once
// One run's journal (core/journal.h) kept in the run store: written through the store's writer thread as the run's
// durability says, and, for a resumed run, the entries its journal already holds, which its calls are answered
// from. The journal is an output of the process: values are masked by the run's secrets as they are written (a
// key a model echoed is replayed masked), while what was asked is kept as a digest only.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/journal.h"
#include "engine/core/secret_set.h"
#include "engine/store/run_writer.h"

namespace engine::store {

class RunJournal : public Journal {
 public:
  struct Options {
    // --allow-changed: a point asked differently than recorded ends the replay there (the run goes on live)
    // rather than failing the resume.
    bool allow_changed = false;
    std::shared_ptr<const SecretSet> secrets;  // null: nothing to mask
    // A fork's journal starts as its parent's up to the fork: the recorded entries given are written into this run's
    // journal with its header (they are the parent's, already masked), so the fork resumes and forks on its own.
    bool write_recorded = false;
  };

  // A new run's journal, its header written now (Exit: when it ends). `writer` must outlive the journal.
  RunJournal(RunWriter& writer, JournalRun header, Options options);
  // A resumed run's: `recorded` its entries so far (RunStore::journal_entries), its header rewritten as running.
  RunJournal(RunWriter& writer, JournalRun header, std::vector<StoredEntry> recorded, Options options);
  ~RunJournal() override;  // what is not yet handed to the writer is

  void write(JournalEntry entry) override;
  const JournalEntry* recorded(std::string_view path, JournalKind kind, std::string_view key,
                               std::string_view asked) override;

  // The run ended (Ended), or stopped at a call in doubt (InDoubt): its state handed to the writer, and waited
  // for in Sync mode only (which then throws Error "store.failed" when the journal could not be written).
  void end(JournalState state);

  const std::string& run_id() const override { return header_.id; }
  const JournalRun& header() const { return header_; }
  size_t replayed() const;  // points answered from the journal so far

 private:
  void submit_locked(JournalWrite write, bool wait, std::unique_lock<std::mutex>& lock);

  RunWriter& writer_;
  JournalRun header_;
  Options options_;
  mutable std::mutex mu_;
  std::map<std::string, StoredEntry, std::less<>> recorded_;  // by point
  bool diverged_ = false;  // allow_changed, and a point differed: no more replay
  size_t replayed_ = 0;
  int64_t next_seq_ = 1;
  std::vector<StoredEntry> held_;  // Exit: everything until the end
  size_t last_ticket_ = 0;
  bool ended_ = false;
};

}  // namespace engine::store
