#pragma once
// What the run store keeps of a journaled run (core/journal.h, docs/durability.md): its header, written when it
// starts and updated as it ends, and its entries in order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/journal.h"
#include "engine/core/value.h"

namespace engine::store {

// Where a journaled run is.
enum class JournalState {
  Running,  // started and not ended: a process runs it, or one that ran it died (engine runs list --unfinished)
  Ended,    // it ended, ok or failed: resumed no more (forked instead)
  InDoubt,  // stopped at a call whose effect may or may not have happened, until engine runs resolve says which
  Waiting,  // stopped at a call a person must decide on (docs/people.md), until engine runs approve or reject
};
std::string_view name_of(JournalState state);

struct JournalRun {
  std::string id;
  std::string workflow;  // its name
  std::string source;    // the workflow's file, absolute
  Value files = Value::object();  // {path: sha256 of its content} of every file the workflow was built from
  Value inputs = Value::object();
  Durability durability = Durability::Async;
  std::string parent;   // the run it was forked from, or ""
  std::string fork_at;  // the step of the parent it was forked at
  JournalState state = JournalState::Running;
  // What started it: "" (engine run, fork), "serve" (a request answered when the run ends) or "serve-async" (one
  // answered at once, which a server started again resumes).
  std::string origin;
  int64_t started_ms = 0, updated_ms = 0;  // Unix time, milliseconds
};

// An entry as the store read it back: its place in the run's order besides what it records.
struct StoredEntry {
  int64_t seq = 0;
  JournalEntry entry;  // `asked` holds the digest of what was asked, not the text
};

// What one run writes to its journal at once: a header when it starts (or is resumed: its state back to running),
// entries, and a new state when it ends.
struct JournalWrite {
  std::string run;
  std::optional<JournalRun> header;
  std::vector<StoredEntry> entries;
  std::optional<JournalState> state;
};

}  // namespace engine::store
