#include "engine/store/run_store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::store {
namespace {

// "engR" in the file's header: a store is told from any other SQLite file without reading its tables.
constexpr int64_t kApplicationId = 0x656E6752;
// 1: runs and events; 2: the journal's tables beside them; 3: a journaled run's origin (a store of an earlier
// version gains what it lacks when opened).
constexpr int64_t kVersion = 3;

const char* const kSchema = R"(
CREATE TABLE runs (
  id TEXT NOT NULL UNIQUE,
  workflow TEXT NOT NULL,
  source TEXT NOT NULL,
  command TEXT NOT NULL,
  status TEXT NOT NULL,
  stopped_reason TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  elapsed_ms REAL NOT NULL,
  inputs TEXT NOT NULL,
  output TEXT NOT NULL,
  error TEXT,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_usd REAL,
  trace_id TEXT NOT NULL
);
CREATE INDEX runs_by_time ON runs(started_ms);
CREATE INDEX runs_by_workflow ON runs(workflow, started_ms);
-- A run's events as JSON lines, in rows of one or more lines (read in seq order).
CREATE TABLE events (
  run INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run, seq)
) WITHOUT ROWID;
)";

// The journal (store/journal_records.h, docs/durability.md): a run's header from its start, its entries as it goes,
// and the values too large to repeat in each entry, once by their SHA-256.
const char* const kJournalSchema = R"(
CREATE TABLE journal_runs (
  id TEXT PRIMARY KEY,
  format INTEGER NOT NULL,
  workflow TEXT NOT NULL,
  source TEXT NOT NULL,
  files TEXT NOT NULL,
  inputs TEXT NOT NULL,
  durability TEXT NOT NULL,
  parent TEXT NOT NULL,
  fork_at TEXT NOT NULL,
  state TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  origin TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE INDEX journal_runs_by_state ON journal_runs(state, started_ms);
CREATE TABLE journal (
  run TEXT NOT NULL,
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  asked TEXT NOT NULL,
  value TEXT,
  blob TEXT,
  PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE TABLE blobs (
  digest TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
)";

const char* const kColumns =
    "id, workflow, source, command, status, stopped_reason, started_ms, elapsed_ms, inputs, output, error, "
    "prompt_tokens, completion_tokens, cost_usd, trace_id";

int64_t pragma(Database& db, const char* name) {
  Statement s = db.prepare(std::string("PRAGMA ") + name);
  return s.step() ? s.integer(0) : 0;
}

Value json_column(const Statement& s, int column) {
  if (s.is_null(column)) return Value();
  Value v = parse_json(s.text(column));
  return v.is_discarded() ? Value() : v;
}

RunRecord read_run(const Statement& s) {
  RunRecord r;
  r.id = s.text(0);
  r.workflow = s.text(1);
  r.source = s.text(2);
  r.command = s.text(3);
  r.status = s.text(4);
  r.stopped_reason = s.text(5);
  r.started_ms = s.integer(6);
  r.elapsed_ms = s.real(7);
  r.inputs = json_column(s, 8);
  r.output = json_column(s, 9);
  r.error = json_column(s, 10);
  r.prompt_tokens = s.integer(11);
  r.completion_tokens = s.integer(12);
  if (!s.is_null(13)) r.cost_usd = s.real(13);
  r.trace_id = s.text(14);
  return r;
}

void make_folder(const std::filesystem::path& file) {
  std::filesystem::path folder = file.parent_path();
  if (folder.empty() || std::filesystem::exists(folder)) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw Error(ErrorKind::StoreOpenFailed, "cannot make the run store's folder " + folder.string() + ": " + ec.message());
  ::chmod(folder.c_str(), 0700);  // runs hold prompts and answers: the user's alone
}

}  // namespace

RunStore::RunStore(const std::filesystem::path& file) : file_(file), db_((make_folder(file), file.string())) {
  auto not_a_store = [&](const std::string& why) {
    return Error(ErrorKind::StoreNotAStore, file.string() + " is not a run store of this engine: " + why +
                                          " (give another file with --store, or move this one away)");
  };
  try {
    int64_t app = pragma(db_, "application_id"), version = pragma(db_, "user_version");
    if (app == 0 && version == 0) {
      Transaction make(db_);
      Statement tables = db_.prepare("SELECT count(*) FROM sqlite_master");
      if (tables.step() && tables.integer(0) > 0) throw not_a_store("it is another SQLite database");
      db_.exec(kSchema);
      db_.exec(kJournalSchema);
      db_.exec("PRAGMA application_id = " + std::to_string(kApplicationId) + "; PRAGMA user_version = " +
               std::to_string(kVersion));
      make.commit();
      app = kApplicationId;
      version = kVersion;
    }
    if (app != kApplicationId) throw not_a_store("it is another SQLite database");
    if (version > kVersion) throw not_a_store("it was made by a newer engine (store version " + std::to_string(version) + ")");
    if (version < kVersion) {  // the runs kept are as they were
      Transaction upgrade(db_);
      int64_t now = pragma(db_, "user_version");  // another process may have upgraded it meanwhile
      if (now == 1) db_.exec(kJournalSchema);
      if (now == 2) db_.exec("ALTER TABLE journal_runs ADD COLUMN origin TEXT NOT NULL DEFAULT ''");
      if (now < kVersion) db_.exec("PRAGMA user_version = " + std::to_string(kVersion));
      upgrade.commit();
    }
    // A command records a run or two and exits: checkpointing the WAL into the file at every close would cost each
    // process two syncs. The WAL stays instead; but every process that opens the file reads the WAL through (its
    // index does not outlive the last connection), and one whose WAL was checkpointed by another but not emptied
    // would checkpoint it again. So the WAL is kept short and emptied: a writer that leaves it at kCheckpointFrames
    // or more checkpoints it and truncates it (record()). SQLite's own checkpoints, which never empty it, are off.
    db_.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
    sqlite3_wal_hook(
        db_.handle(),
        [](void* store, sqlite3*, const char*, int frames) {
          static_cast<RunStore*>(store)->wal_frames_ = frames;
          return SQLITE_OK;
        },
        this);
    sqlite3_db_config(db_.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    int persist = 1;
    sqlite3_file_control(db_.handle(), "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::StoreNotAStore) throw;
    throw not_a_store(e.message());  // a corrupt file, or not a database at all
  }
  ::chmod(file.c_str(), 0600);
}

void RunStore::record(const RunRecord& run) { record_all(std::span<const RunRecord>(&run, 1)); }

void RunStore::record_all(std::span<const RunRecord> runs) {
  if (runs.empty()) return;
  std::lock_guard lock(mutex_);
  // Prepared once: a batch records a run every few milliseconds, and preparing cost as much as the writing.
  if (!insert_run_) {
    insert_run_.emplace(db_.prepare(std::string("INSERT INTO runs (") + kColumns +
                                    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"));
    insert_events_.emplace(db_.prepare("INSERT INTO events (run, seq, record) VALUES (?1, 0, ?2)"));
    // Only a journaled run may be recorded again (resumed under its id); any other id stays unique.
    delete_run_.emplace(db_.prepare(
        "DELETE FROM runs WHERE id = ?1 AND id IN (SELECT id FROM journal_runs) RETURNING rowid"));
  }
  Transaction tx(db_);
  for (const RunRecord& run : runs) insert_locked(run);
  tx.commit();
  for (size_t i = 0; i < runs.size(); ++i)
    if (++written_ % 64 == 0) prune_locked();  // now and then: deleting is not every run's cost
  // A process that records one run keeps the WAL short for the next; one that records many (a batch, a server)
  // lets it grow to SQLite's usual size between checkpoints, and empties it when it closes the store.
  recorded_here_ += runs.size();
  if (wal_frames_ >= (recorded_here_ == 1 ? kCheckpointFrames : kBatchCheckpointFrames)) empty_wal();
}

void RunStore::insert_locked(const RunRecord& run) {
  // A resumed run ends under the id it had: what its first process recorded (a run cut short by Ctrl-C) gives way.
  Statement& earlier = *delete_run_;
  earlier.reset();
  earlier.bind(1, run.id);
  while (earlier.step()) {
    Statement gone = db_.prepare("DELETE FROM events WHERE run = ?1");
    gone.bind(1, earlier.integer(0));
    gone.step();
  }
  Statement& insert = *insert_run_;
  insert.reset();
  insert.bind(1, run.id).bind(2, run.workflow).bind(3, run.source).bind(4, run.command).bind(5, run.status);
  insert.bind(6, run.stopped_reason).bind(7, run.started_ms).bind_real(8, run.elapsed_ms);
  insert.bind(9, to_json_text(run.inputs)).bind(10, to_json_text(run.output));
  if (run.error.is_null()) insert.bind_null(11);
  else insert.bind(11, to_json_text(run.error));
  insert.bind(12, run.prompt_tokens).bind(13, run.completion_tokens);
  if (run.cost_usd) insert.bind_real(14, *run.cost_usd);
  else insert.bind_null(14);
  insert.bind(15, run.trace_id);
  insert.step();
  // The events in one row, a line each (JSON text holds no raw newline): one insert a run rather than one an event.
  size_t size = 0;
  for (const std::string& e : run.events) size += e.size() + 1;
  std::string lines;
  lines.reserve(size);
  for (const std::string& e : run.events) {
    lines += e;
    lines += '\n';
  }
  Statement& events = *insert_events_;
  events.reset();
  events.bind(1, db_.last_insert_rowid()).bind(2, lines);
  events.step();
}

void RunStore::empty_wal() {
  // Readers (the viewer) may keep it from finishing: then a later write tries again.
  sqlite3_wal_checkpoint_v2(db_.handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  wal_frames_ = 0;
}

RunStore::~RunStore() {
  std::lock_guard lock(mutex_);
  if (wal_frames_ >= kCheckpointFrames) empty_wal();
}

size_t RunStore::prune() {
  std::lock_guard lock(mutex_);
  return prune_locked();
}

size_t RunStore::prune_locked() {
  std::string older = "SELECT rowid FROM runs ORDER BY rowid DESC LIMIT -1 OFFSET " + std::to_string(keep_);
  Transaction tx(db_);
  db_.exec("DELETE FROM events WHERE run IN (" + older + ")");
  db_.exec("DELETE FROM runs WHERE rowid IN (" + older + ")");
  size_t gone = static_cast<size_t>(sqlite3_changes(db_.handle()));
  if (gone > 0) prune_journals_locked();
  tx.commit();
  return gone;
}

std::vector<RunRecord> RunStore::list(const RunFilter& filter) {
  std::lock_guard lock(mutex_);
  std::string sql = std::string("SELECT ") + kColumns + " FROM runs WHERE started_ms >= ?1";
  if (!filter.workflow.empty()) sql += " AND workflow = ?2";
  if (!filter.status.empty()) sql += " AND status = ?3";
  sql += " ORDER BY started_ms DESC, rowid DESC LIMIT ?4";
  Statement s = db_.prepare(sql);
  s.bind(1, filter.since_ms).bind(4, static_cast<int64_t>(filter.limit));
  if (!filter.workflow.empty()) s.bind(2, filter.workflow);
  if (!filter.status.empty()) s.bind(3, filter.status);
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

std::optional<RunRecord> RunStore::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  Statement s = db_.prepare(std::string("SELECT ") + kColumns + ", rowid FROM runs WHERE substr(id, 1, ?1) = ?2 "
                            "ORDER BY id = ?2 DESC LIMIT 2");
  s.bind(1, static_cast<int64_t>(id.size())).bind(2, id);
  if (!s.step()) return std::nullopt;
  RunRecord run = read_run(s);
  int64_t row = s.integer(15);
  if (run.id != id && s.step())
    throw Error(ErrorKind::StoreAmbiguous, "more than one run's id starts with '" + id + "': give more of it");
  Statement events = db_.prepare("SELECT record FROM events WHERE run = ?1 ORDER BY seq");
  events.bind(1, row);
  while (events.step()) {
    std::string lines = events.text(0);
    for (size_t at = 0; at < lines.size();) {
      size_t end = lines.find('\n', at);
      if (end == std::string::npos) end = lines.size();
      if (end > at) run.events.push_back(lines.substr(at, end - at));
      at = end + 1;
    }
  }
  return run;
}

std::optional<std::filesystem::path> store_location(const std::string& flag, bool no_store,
                                                    const std::function<const char*(const char*)>& env) {
  if (no_store) return std::nullopt;
  if (!flag.empty()) return std::filesystem::path(flag);
  auto variable = [&](const char* name) -> std::string {
    const char* v = env(name);
    return v ? std::string(v) : std::string();
  };
  std::string given = variable("ENGINE_STORE");
  if (given == "off") return std::nullopt;
  if (!given.empty()) return std::filesystem::path(given);
  if (std::string data = variable("XDG_DATA_HOME"); !data.empty() && data.front() == '/')
    return std::filesystem::path(data) / "engine" / "runs.db";
  std::string home = variable("HOME");
  if (home.empty()) return std::nullopt;  // nowhere to keep it
  return std::filesystem::path(home) / ".local" / "share" / "engine" / "runs.db";
}

size_t store_keep(const std::function<const char*(const char*)>& env) {
  const char* given = env("ENGINE_STORE_KEEP");
  if (!given || !*given) return RunStore::kDefaultKeep;
  size_t n = 0;
  auto [end, ec] = std::from_chars(given, given + std::strlen(given), n);
  if (ec != std::errc() || *end != '\0' || n == 0)
    throw Error(ErrorKind::Usage, "ENGINE_STORE_KEEP is how many runs the store keeps, a whole number from 1, not '" +
                             printable_excerpt(given, 40) + "'");
  return n;
}

}  // namespace engine::store
