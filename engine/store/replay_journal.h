#pragma once
// A run made again offline against a stored run's journal (engine runs replay, docs/durability.md): every model
// and tool call is answered from the journal, none is made, and what the replay's steps give is kept to compare with
// what the journal recorded. A point asked otherwise than recorded is still answered (the replay shows what the
// workflow now does with the same answers), and noted; a point the journal does not hold stops the replay.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/journal.h"
#include "engine/store/journal_records.h"

namespace engine::store {

class ReplayJournal : public Journal {
 public:
  ReplayJournal(std::string run_id, const std::vector<StoredEntry>& recorded);

  // Keeps what the replay's steps end with; writes nothing.
  void write(JournalEntry entry) override;
  // The recorded entry; throws Error "journal.not_recorded" for a call the journal does not hold.
  const JournalEntry* recorded(std::string_view path, JournalKind kind, std::string_view key,
                               std::string_view asked) override;
  const std::string& run_id() const override { return run_id_; }

  struct Difference {
    std::string step;  // its path
    Value recorded;    // {status, output} as the journal has it (null: the recorded run never ended it)
    Value replayed;    // as the replay ended it (null: the replay never ran it)
  };
  // The steps whose end differs, in the order the recorded run ended them (then those only the replay ran).
  std::vector<Difference> differences() const;
  // The points answered although asked otherwise than recorded ("llm.0 at draft").
  std::vector<std::string> asked_otherwise() const;

 private:

  std::string run_id_;
  mutable std::mutex mu_;
  std::map<std::string, JournalEntry, std::less<>> recorded_;
  std::vector<std::pair<std::string, Value>> recorded_ends_;  // step path, {status, output}, in order
  std::map<std::string, Value> replayed_ends_;
  std::vector<std::string> replay_order_;
  std::vector<std::string> asked_otherwise_;
};

}  // namespace engine::store
