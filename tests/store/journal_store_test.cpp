// The journal in the run store (docs/durability.md): entries read back in order, large values stored once by
// digest, and a journal that is corrupt, truncated of a value, or from a newer engine refused whole; a store of
// version 1 gains the journal's tables and keeps its runs, one of version 2 the runs' origin.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include "engine/core/error.h"
#include "engine/store/digest.h"
#include "engine/store/run_journal.h"
#include "engine/store/run_store.h"
#include "support/test_support.h"

using namespace engine;

namespace {

store::JournalRun header(const std::string& id) {
  store::JournalRun h;
  h.id = id;
  h.workflow = "w";
  h.source = "/w.yaml";
  h.files = Value{{"/w.yaml", "00"}};
  h.inputs = Value{{"topic", "refunds"}};
  h.started_ms = 1000;
  return h;
}

void write_all(store::RunStore& store, store::JournalWrite write) {
  store.append_journal(std::span<const store::JournalWrite>(&write, 1));
}

void exec(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

std::string journal_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.message();
  }
  return "";
}

}  // namespace

TEST_CASE("journal store: entries come back in order, a large value stored once by its digest", "[store][journal]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  std::string big(5000, 'x');
  store::JournalWrite w{"run-1", header("run-1"), {}, std::nullopt};
  w.entries.push_back({1, {"draft", JournalKind::StepStart, "", "", Value{{"prompt", "Draft"}}}});
  w.entries.push_back({2, {"draft", JournalKind::Llm, "llm.0", "d1", Value{{"text", big}}}});
  w.entries.push_back({3, {"other", JournalKind::Llm, "llm.0", "d2", Value{{"text", big}}}});
  write_all(store, std::move(w));
  std::vector<store::StoredEntry> back = store.journal_entries("run-1");
  REQUIRE(back.size() == 3);
  CHECK(back[0].seq == 1);
  CHECK(back[0].entry.path == "draft");
  CHECK(back[0].entry.kind == JournalKind::StepStart);
  CHECK(back[0].entry.value == Value{{"prompt", "Draft"}});
  CHECK(back[1].entry.key == "llm.0");
  CHECK(back[1].entry.asked == "d1");
  CHECK(back[2].entry.value["text"] == big);

  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((dir.path() / "runs.db").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM blobs", -1, &s, nullptr);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  CHECK(sqlite3_column_int(s, 0) == 1);  // two entries, one stored value
  sqlite3_finalize(s);
  sqlite3_close(db);

  std::optional<store::JournalRun> found = store.find_journal("run-");
  REQUIRE(found);
  CHECK(found->id == "run-1");
  CHECK(found->inputs == Value{{"topic", "refunds"}});
  CHECK(found->state == store::JournalState::Running);
  CHECK(store.journal_runs(true, 10).size() == 1);
  store.set_journal_state("run-1", store::JournalState::Ended);
  CHECK(store.journal_runs(true, 10).empty());
  CHECK(store.journal_runs(false, 10).size() == 1);
}

TEST_CASE("journal store: a corrupt value, a missing or altered stored value, and a newer format are refused",
          "[store][journal]") {
  test::TempDir dir;
  auto file = dir.path() / "runs.db";
  {
    store::RunStore store(file);
    store::JournalWrite w{"run-1", header("run-1"), {}, std::nullopt};
    w.entries.push_back({1, {"a", JournalKind::Llm, "llm.0", "d", Value{{"text", std::string(5000, 'y')}}}});
    write_all(store, std::move(w));
  }
  SECTION("a value that is not JSON") {
    exec(file, "UPDATE journal SET value = '{\"text\": ', blob = NULL");
    store::RunStore store(file);
    CHECK(journal_error_of([&] { store.journal_entries("run-1"); }) ==
          "journal.corrupt: the journal of run run-1 cannot be read: entry 1's value is not JSON");
  }
  SECTION("a stored value that is gone") {
    exec(file, "DELETE FROM blobs");
    store::RunStore store(file);
    CHECK(journal_error_of([&] { store.journal_entries("run-1"); }) ==
          "journal.corrupt: the journal of run run-1 cannot be read: entry 1's value is missing");
  }
  SECTION("a stored value that was altered") {
    exec(file, "UPDATE blobs SET value = '{\"text\": \"z\"}'");
    store::RunStore store(file);
    CHECK(journal_error_of([&] { store.journal_entries("run-1"); }) ==
          "journal.corrupt: the journal of run run-1 cannot be read: entry 1's value does not match its digest");
  }
  SECTION("an entry of no kind") {
    exec(file, "UPDATE journal SET kind = 'teleport'");
    store::RunStore store(file);
    CHECK(journal_error_of([&] { store.journal_entries("run-1"); }) ==
          "journal.corrupt: the journal of run run-1 cannot be read: entry 1 is of no kind ('teleport')");
  }
  SECTION("a newer engine's journal") {
    exec(file, "UPDATE journal_runs SET format = 7");
    store::RunStore store(file);
    CHECK(journal_error_of([&] { store.find_journal("run-1"); }) ==
          "journal.newer: run run-1 was journaled by a newer engine (journal format 7; this engine reads 1)");
  }
}

TEST_CASE("journal store: a store of version 1 gains the journal's tables and keeps its runs", "[store][journal]") {
  test::TempDir dir;
  auto file = dir.path() / "runs.db";
  {
    store::RunStore store(file);
    store::RunRecord r;
    r.id = "old";
    r.workflow = "w";
    r.command = "run";
    r.status = "ok";
    store.record(r);
  }
  exec(file, "DROP TABLE journal; DROP TABLE journal_runs; DROP TABLE blobs; PRAGMA user_version = 1");
  store::RunStore store(file);
  CHECK(store.find("old"));
  write_all(store, {"run-2", header("run-2"), {}, std::nullopt});
  CHECK(store.find_journal("run-2"));
}

TEST_CASE("journal store: a journaled run's origin is kept, and a store of version 2 gains its column",
          "[store][journal]") {
  test::TempDir dir;
  auto file = dir.path() / "runs.db";
  {
    store::RunStore store(file);
    store::JournalRun h = header("served");
    h.origin = "serve-async";
    write_all(store, {"served", h, {}, std::nullopt});
    CHECK(store.find_journal("served")->origin == "serve-async");
  }
  exec(file, "ALTER TABLE journal_runs DROP COLUMN origin; PRAGMA user_version = 2");
  store::RunStore store(file);
  CHECK(store.find_journal("served")->origin == "");
  write_all(store, {"run-2", header("run-2"), {}, std::nullopt});
  CHECK(store.journal_runs(false, 10).size() == 2);
}

TEST_CASE("run journal: a resumed run is answered where it asks the same, and refused or let go live where not",
          "[store][journal]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  std::vector<store::StoredEntry> recorded{
      {1, {"draft", JournalKind::Llm, "llm.0", store::sha256_hex("request one"), Value{{"text", "one"}}}},
      {2, {"draft", JournalKind::Llm, "llm.1", store::sha256_hex("request two"), Value{{"text", "two"}}}}};
  store::RunWriter writer(store, 16);
  {
    store::RunJournal journal(writer, header("run-3"), recorded, {});
    const JournalEntry* one = journal.recorded("draft", JournalKind::Llm, "llm.0", "request one");
    REQUIRE(one);
    CHECK(one->value["text"] == "one");
    CHECK(journal.recorded("draft", JournalKind::Llm, "llm.9", "request") == nullptr);
    CHECK(journal_error_of([&] { journal.recorded("draft", JournalKind::Llm, "llm.1", "request 2"); }) ==
          "journal.diverged: run run-3 now asks something else at llm llm.1 at draft than its journal recorded: the "
          "workflow or its inputs lead elsewhere (--allow-changed goes on live from here)");
    CHECK(journal.replayed() == 1);
  }
  store::RunJournal changed(writer, header("run-4"), recorded, {.allow_changed = true});
  CHECK(changed.recorded("draft", JournalKind::Llm, "llm.1", "request 2") == nullptr);
  // Live from the first difference on: a later point the journal holds is not replayed either.
  CHECK(changed.recorded("draft", JournalKind::Llm, "llm.0", "request one") == nullptr);
  changed.write({"draft", JournalKind::Llm, "llm.1", "request 2", Value{{"text", "live"}}});
  changed.end(store::JournalState::Ended);
  writer.flush();
  std::vector<store::StoredEntry> back = store.journal_entries("run-4");
  REQUIRE(back.size() == 1);  // the entries it was given were the first pass's; the store holds what it wrote
  CHECK(back[0].seq == 3);
  CHECK(back[0].entry.asked == store::sha256_hex("request 2"));
  CHECK(store.find_journal("run-4")->state == store::JournalState::Ended);
}

TEST_CASE("journal store: a journaled run recorded again replaces its record, and pruning takes its journal with it",
          "[store][journal]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  auto record = [&](const std::string& id, const std::string& status) {
    store::RunRecord r;
    r.id = id;
    r.workflow = "w";
    r.command = "run";
    r.status = status;
    r.events = {"{\"type\":\"chain_start\"}"};
    store.record(r);
  };
  store::JournalWrite w{"resumed", header("resumed"), {}, store::JournalState::Ended};
  w.entries.push_back({1, {"a", JournalKind::Llm, "llm.0", "d", Value{{"text", std::string(5000, 'z')}}}});
  write_all(store, std::move(w));
  record("resumed", "failed");  // cut short by Ctrl-C...
  record("resumed", "ok");      // ...and resumed to its end
  CHECK(store.find("resumed")->status == "ok");
  CHECK(store.find("resumed")->events.size() == 1);
  CHECK(store.list({}).size() == 1);
  CHECK(journal_error_of([&] { record("plain", "ok"), record("plain", "ok"); }).rfind("store.failed: ", 0) == 0);

  record("newer", "ok");
  store.set_keep(1);
  CHECK(store.prune() == 2);  // "resumed" and "plain" go, and the journal of "resumed" with them
  CHECK_FALSE(store.find_journal("resumed"));
  CHECK(store.journal_entries("resumed").empty());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((dir.path() / "runs.db").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM blobs", -1, &s, nullptr);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  CHECK(sqlite3_column_int(s, 0) == 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
}
