// The run store's journal tables (run_store.h, docs/durability.md).
#include <sqlite3.h>

#include <chrono>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/name_table.h"
#include "engine/core/text.h"
#include "engine/store/digest.h"
#include "engine/store/run_store.h"

namespace engine::store {
namespace {

// The journal's own format, apart from the store's: a resume reads only what it knows how to replay.
constexpr int64_t kJournalFormat = 1;

constexpr Named<JournalState> kStates[] = {
    {JournalState::Running, "running"},
    {JournalState::Ended, "ended"},
    {JournalState::InDoubt, "in_doubt"},
    {JournalState::Waiting, "waiting"},
};

const char* const kRunColumns =
    "id, format, workflow, source, files, inputs, durability, parent, fork_at, state, started_ms, updated_ms, origin";

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Error corrupt(const std::string& run, const std::string& why) {
  return Error(ErrorKind::JournalCorrupt, "the journal of run " + run + " cannot be read: " + why);
}

Value json_of(const std::string& run, const std::string& text, const char* what) {
  Value v = parse_json(text);
  if (v.is_discarded()) throw corrupt(run, std::string(what) + " is not JSON");
  return v;
}

JournalRun read_header(const Statement& s) {
  JournalRun r;
  r.id = s.text(0);
  if (int64_t format = s.integer(1); format > kJournalFormat)
    throw Error(ErrorKind::JournalNewer, "run " + r.id + " was journaled by a newer engine (journal format " +
                                             std::to_string(format) + "; this engine reads " +
                                             std::to_string(kJournalFormat) + ")");
  r.workflow = s.text(2);
  r.source = s.text(3);
  r.files = json_of(r.id, s.text(4), "its files");
  r.inputs = json_of(r.id, s.text(5), "its inputs");
  auto durability = durability_named(s.text(6));
  if (!durability) throw corrupt(r.id, "its durability '" + printable_excerpt(s.text(6), 40) + "' is none");
  r.durability = *durability;
  r.parent = s.text(7);
  r.fork_at = s.text(8);
  auto state = value_named(kStates, s.text(9));
  if (!state) throw corrupt(r.id, "its state '" + printable_excerpt(s.text(9), 40) + "' is none");
  r.state = *state;
  r.started_ms = s.integer(10);
  r.updated_ms = s.integer(11);
  r.origin = s.text(12);
  return r;
}

}  // namespace

std::string_view name_of(JournalState state) { return name_in(kStates, state); }

void RunStore::append_journal(std::span<const JournalWrite> groups) {
  if (groups.empty()) return;
  std::lock_guard lock(mutex_);
  if (!insert_entry_) {
    insert_entry_.emplace(db_.prepare(
        "INSERT OR REPLACE INTO journal (run, seq, path, kind, key, asked, value, blob) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
    insert_blob_.emplace(db_.prepare("INSERT OR IGNORE INTO blobs (digest, value) VALUES (?1, ?2)"));
  }
  Transaction tx(db_);
  for (const JournalWrite& g : groups) append_locked(g);
  tx.commit();
}

void RunStore::append_locked(const JournalWrite& group) {
  if (const auto& run = group.header) {
    Statement s = db_.prepare(std::string("INSERT OR REPLACE INTO journal_runs (") + kRunColumns +
                              ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    s.bind(1, run->id).bind(2, kJournalFormat).bind(3, run->workflow).bind(4, run->source);
    s.bind(5, to_json_text(run->files)).bind(6, to_json_text(run->inputs)).bind(7, name_of(run->durability));
    s.bind(8, run->parent).bind(9, run->fork_at).bind(10, name_of(run->state));
    s.bind(11, run->started_ms).bind(12, now_ms()).bind(13, run->origin);
    s.step();
  }
  for (const StoredEntry& stored : group.entries) {
    const JournalEntry& e = stored.entry;
    std::string text = to_json_text(e.value);
    Statement& insert = *insert_entry_;
    insert.reset();
    insert.bind(1, group.run).bind(2, stored.seq).bind(3, e.path).bind(4, name_of(e.kind)).bind(5, e.key);
    insert.bind(6, e.asked);
    if (text.size() > limits::kJournalInlineBytes) {
      std::string digest = sha256_hex(text);
      insert_blob_->reset();
      insert_blob_->bind(1, digest).bind(2, text);
      insert_blob_->step();
      insert.bind_null(7).bind(8, digest);
    } else {
      insert.bind(7, text).bind_null(8);
    }
    insert.step();
  }
  if (group.state) {
    Statement s = db_.prepare("UPDATE journal_runs SET state = ?2, updated_ms = ?3 WHERE id = ?1");
    s.bind(1, group.run).bind(2, name_of(*group.state)).bind(3, now_ms());
    s.step();
  }
}

std::optional<JournalRun> RunStore::find_journal(const std::string& id) {
  std::lock_guard lock(mutex_);
  Statement s = db_.prepare(std::string("SELECT ") + kRunColumns +
                            " FROM journal_runs WHERE substr(id, 1, ?1) = ?2 ORDER BY id = ?2 DESC LIMIT 2");
  s.bind(1, static_cast<int64_t>(id.size())).bind(2, id);
  if (!s.step()) return std::nullopt;
  JournalRun run = read_header(s);
  if (run.id != id && s.step())
    throw Error(ErrorKind::StoreAmbiguous, "more than one run's id starts with '" + id + "': give more of it");
  return run;
}

std::vector<StoredEntry> RunStore::journal_entries(const std::string& run) {
  std::lock_guard lock(mutex_);
  Statement s = db_.prepare(
      "SELECT seq, path, kind, key, asked, coalesce(journal.value, blobs.value), blob, blobs.digest IS NULL "
      "FROM journal LEFT JOIN blobs ON blobs.digest = journal.blob WHERE run = ?1 ORDER BY seq");
  s.bind(1, run);
  std::vector<StoredEntry> out;
  while (s.step()) {
    if (out.size() >= limits::kJournalEntries)
      throw corrupt(run, "it holds more than " + std::to_string(limits::kJournalEntries) + " entries");
    StoredEntry stored;
    stored.seq = s.integer(0);
    JournalEntry& e = stored.entry;
    e.path = s.text(1);
    auto kind = journal_kind_named(s.text(2));
    if (!kind) throw corrupt(run, "entry " + std::to_string(stored.seq) + " is of no kind ('" +
                                      printable_excerpt(s.text(2), 40) + "')");
    e.kind = *kind;
    e.key = s.text(3);
    e.asked = s.text(4);
    if (!s.is_null(6)) {
      if (s.integer(7) != 0) throw corrupt(run, "entry " + std::to_string(stored.seq) + "'s value is missing");
      std::string text = s.text(5);
      if (sha256_hex(text) != s.text(6))
        throw corrupt(run, "entry " + std::to_string(stored.seq) + "'s value does not match its digest");
      e.value = json_of(run, text, ("entry " + std::to_string(stored.seq) + "'s value").c_str());
    } else if (s.is_null(5)) {
      throw corrupt(run, "entry " + std::to_string(stored.seq) + " has no value");
    } else {
      e.value = json_of(run, s.text(5), ("entry " + std::to_string(stored.seq) + "'s value").c_str());
    }
    out.push_back(std::move(stored));
  }
  return out;
}

std::vector<JournalRun> RunStore::journal_runs(bool unfinished, size_t limit) {
  std::lock_guard lock(mutex_);
  std::string sql = std::string("SELECT ") + kRunColumns + " FROM journal_runs";
  if (unfinished) sql += " WHERE state != 'ended'";
  sql += " ORDER BY started_ms DESC LIMIT ?1";
  Statement s = db_.prepare(sql);
  s.bind(1, static_cast<int64_t>(limit));
  std::vector<JournalRun> out;
  while (s.step()) out.push_back(read_header(s));
  return out;
}

void RunStore::set_journal_state(const std::string& run, JournalState state) {
  JournalWrite g{run, std::nullopt, {}, state};
  append_journal(std::span<const JournalWrite>(&g, 1));
}

void RunStore::delete_journal_entry(const std::string& run, int64_t seq) {
  std::lock_guard lock(mutex_);
  Statement s = db_.prepare("DELETE FROM journal WHERE run = ?1 AND seq = ?2");
  s.bind(1, run).bind(2, seq);
  s.step();
}

void RunStore::prune_journals_locked() {
  const char* gone = "SELECT id FROM journal_runs WHERE state = 'ended' AND id NOT IN (SELECT id FROM runs)";
  db_.exec(std::string("DELETE FROM journal WHERE run IN (") + gone + ")");
  db_.exec(std::string("DELETE FROM journal_runs WHERE id IN (") + gone + ")");
  db_.exec("DELETE FROM blobs WHERE digest NOT IN (SELECT blob FROM journal WHERE blob IS NOT NULL)");
}

}  // namespace engine::store
