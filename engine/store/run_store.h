#pragma once
// The local run store: every run the engine makes (a `run`, a chat turn, a batch row, a served request) kept in one
// SQLite file, its summary and its events (the lines a --trace file would hold, keys masked), so a run can be listed,
// shown again as the console showed it, compared with another and sent to a collector later. WAL mode: readers never
// wait for a writer, and several processes write at once (a busy file is waited for); a run is written in one
// transaction when it ends, so a process killed mid-batch loses only the runs still going.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/value.h"
#include "engine/store/journal_records.h"
#include "engine/store/sqlite.h"

namespace engine::store {

// A finished run as the store keeps it.
struct RunRecord {
  std::string id;           // the run's id
  std::string workflow;     // its name
  std::string source;       // the workflow's file, when known
  std::string command;      // run, chat, batch, serve
  std::string status;       // ok, failed
  std::string stopped_reason;
  int64_t started_ms = 0;   // Unix time, milliseconds
  double elapsed_ms = 0;
  Value inputs = Value::object();
  Value output;             // the answer
  Value error;              // {kind, message, ...} or null
  int64_t prompt_tokens = 0, completion_tokens = 0;
  std::optional<double> cost_usd;
  std::string trace_id;     // the OpenTelemetry trace it was part of, when traced
  std::vector<std::string> events;  // each a JSON object as a --trace line holds it ({"t_ms", "type", ...})
};

struct RunFilter {
  std::string workflow;  // exact name; empty: any
  std::string status;    // ok or failed; empty: any
  int64_t since_ms = 0;  // started at or after (Unix ms); 0: any time
  size_t limit = 50;
};

class RunStore {
 public:
  // Opens the store in `file`, making it (and its folder, private to the user) when missing. Throws Error
  // "store.open_failed" (a file SQLite cannot open), "store.not_a_store" (a file that is not a run store: another
  // database, a corrupt one, or one of a newer version).
  explicit RunStore(const std::filesystem::path& file);
  ~RunStore();  // empties a WAL this process grew long
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Writes a finished run, in one transaction; keeps the newest `keep()` runs (older ones go now and then: every
  // 64th write, the first of them at a random one). Safe from several threads. Throws Error "store.failed".
  void record(const RunRecord& run);
  // Several runs in one transaction (what a RunWriter has waiting).
  void record_all(std::span<const RunRecord> runs);

  std::vector<RunRecord> list(const RunFilter& filter);  // newest first, without their events
  // The run whose id is `id` or starts with it (8 characters or more suffice, as git's short ids); none when no run
  // matches. Throws Error "store.ambiguous" when several do.
  std::optional<RunRecord> find(const std::string& id);

  static constexpr size_t kDefaultKeep = 10000;
  void set_keep(size_t keep) { keep_ = keep; }  // at least 1
  size_t keep() const { return keep_; }
  // Deletes every run but the newest keep(), now. Returns how many went.
  size_t prune();
  const std::filesystem::path& file() const { return file_; }

  // Journals (docs/durability.md; journal_store.cpp). Each throws Error "store.failed" when SQLite does.
  // Writes to journals, in one transaction (what a RunWriter has waiting): each group's header, then its entries
  // (values larger than limits::kJournalInlineBytes go into the blobs table once by digest), then its new state.
  void append_journal(std::span<const JournalWrite> groups);
  // The journaled run whose id is `id` or starts with it (8 characters suffice); none when none matches. Throws
  // Error "store.ambiguous", "journal.newer" (a format this engine does not read), "journal.corrupt".
  std::optional<JournalRun> find_journal(const std::string& id);
  // Its entries in order; throws Error "journal.corrupt" for an entry that cannot be read back whole (a value that
  // is not JSON, a blob missing or not matching its digest, an unknown kind, more than limits::kJournalEntries).
  std::vector<StoredEntry> journal_entries(const std::string& run);
  // Journaled runs, newest first; only those not ended when `unfinished`.
  std::vector<JournalRun> journal_runs(bool unfinished, size_t limit);
  void set_journal_state(const std::string& run, JournalState state);
  void delete_journal_entry(const std::string& run, int64_t seq);  // a call's intent resolved as never made

 private:
  void prune_journals_locked();  // of ended runs whose record was pruned, and the blobs no entry names
  void append_locked(const JournalWrite& group);
  size_t prune_locked();
  void insert_locked(const RunRecord& run);
  void empty_wal();  // checkpoints the WAL and truncates it

  std::filesystem::path file_;
  std::mutex mutex_;  // one writer at a time in this process (SQLite's own lock orders the processes)
  Database db_;
  std::optional<Statement> insert_run_, insert_events_;  // prepared at the first write; finalized before db_ closes
  std::optional<Statement> insert_entry_, insert_blob_, delete_run_;
  // Pages in the WAL (a run writes a few) past which a writer empties it: after its first run, and after later ones.
  static constexpr int kCheckpointFrames = 32, kBatchCheckpointFrames = 1000;
  int wal_frames_ = 0;        // after this connection's last commit
  size_t recorded_here_ = 0;  // runs this connection wrote
  size_t keep_ = kDefaultKeep;
  // Runs written, counted from a random start: processes that write a run or two each (`engine run`) prune in turn,
  // one in 64 on average, rather than each at its first write.
  size_t written_ = arc4random_uniform(64);
};

// Where the store is: `flag` (--store) when given, else $ENGINE_STORE, else $XDG_DATA_HOME/engine/runs.db, else
// ~/.local/share/engine/runs.db; none when recording is off (--no-store, or ENGINE_STORE=off).
std::optional<std::filesystem::path> store_location(const std::string& flag, bool no_store,
                                                    const std::function<const char*(const char*)>& env);

// How many runs the store keeps: $ENGINE_STORE_KEEP (a whole number from 1), else RunStore::kDefaultKeep. Throws
// Error "usage" for a value that is not such a number.
size_t store_keep(const std::function<const char*(const char*)>& env);

}  // namespace engine::store
