// A stored run's journal as a file (app/journal_fixture.h): written from the store and read back entry for entry, and
// a file that is not one refused with its place.
#include <catch2/catch.hpp>

#include "engine/app/journal_fixture.h"
#include "engine/core/error.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::string fixture_error(const std::filesystem::path& file) {
  try {
    app::read_journal_fixture(file);
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.message();
  }
  return "";
}

}  // namespace

TEST_CASE("journal fixture: a run's journal written to a file reads back entry for entry", "[app][journal]") {
  test::TempDir dir;
  store::RunStore store(dir.path() / "runs.db");
  store::JournalRun header;
  header.id = "0123456789abcdef";
  header.workflow = "orders";
  header.inputs = Value{{"who", "a"}};
  store::JournalWrite w{header.id, header, {}, store::JournalState::Ended};
  w.entries.push_back({1, {"send", JournalKind::ToolIntent, "call_1", "d1", Value{{"tool", "post"}, {"effect", "once"}}}});
  w.entries.push_back({2, {"send", JournalKind::ToolResult, "call_1", "d1", Value{{"output", std::string(5000, 'x')}}}});
  w.entries.push_back({3, {"", JournalKind::RunEnd, "", "", Value{{"output", "done"}}}});
  store.append_journal(std::span<const store::JournalWrite>(&w, 1));

  auto file = dir.path() / "orders.journal";
  CHECK(app::write_journal_fixture(store, "01234567", file) == std::pair<std::string, size_t>{header.id, 3});
  app::JournalFixture back = app::read_journal_fixture(file);
  CHECK(back.run == header.id);
  CHECK(back.workflow == "orders");
  CHECK(back.inputs == header.inputs);
  std::vector<store::StoredEntry> stored = store.journal_entries(header.id);
  REQUIRE(back.entries.size() == stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    CHECK(back.entries[i].seq == stored[i].seq);
    CHECK(back.entries[i].entry.path == stored[i].entry.path);
    CHECK(back.entries[i].entry.kind == stored[i].entry.kind);
    CHECK(back.entries[i].entry.key == stored[i].entry.key);
    CHECK(back.entries[i].entry.asked == stored[i].entry.asked);
    CHECK(back.entries[i].entry.value == stored[i].entry.value);
  }
  try {
    app::write_journal_fixture(store, "ffff", file);
    FAIL("wrote a run the store does not hold");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::StoreNoSuchRun);
  }
}

TEST_CASE("journal fixture: a file that is not a journal is refused with its line, and a newer one as newer",
          "[app][journal]") {
  test::TempDir dir;
  std::string head = R"({"engine_journal": 1, "run": "r1", "workflow": "w", "inputs": {}})";
  auto bad = [&](const std::string& name, const std::string& text) {
    return fixture_error(dir.write(name, text));
  };
  std::string at = dir.path().string() + "/";
  CHECK(bad("empty", "") == "journal.corrupt: " + at + "empty is empty: it holds no journal");
  CHECK(bad("other", "{\"a\": 1}\n") == "journal.corrupt: " + at + "other:1: not a journal written by `engine runs "
                                        "export --journal` (its first line has no engine_journal)");
  CHECK(bad("newer", R"({"engine_journal": 2})") ==
        "journal.newer: " + at + "newer was written by a newer engine (journal format 2; this engine reads 1)");
  CHECK(bad("json", head + "\n{\"seq\": 1,\n") == "journal.corrupt: " + at + "json:2: not JSON: " +
        "parse error at line 1, column 11: syntax error while parsing object key - unexpected end of input; expected "
        "string literal");
  CHECK(bad("kind", head + "\n" + R"({"seq": 1, "path": "", "kind": "nap", "key": "", "asked": "", "value": 1})") ==
        "journal.corrupt: " + at + "kind:2: the entry is of no kind ('nap')");
  CHECK(bad("order", head + "\n" + R"({"seq": 2, "path": "", "kind": "llm", "key": "", "asked": "", "value": 1})" +
            "\n" + R"({"seq": 2, "path": "", "kind": "llm", "key": "", "asked": "", "value": 1})") ==
        "journal.corrupt: " + at + "order:3: the entry's seq is not a number above the one before it");
  CHECK(bad("value", head + "\n" + R"({"seq": 1, "path": "", "kind": "llm", "key": "", "asked": ""})") ==
        "journal.corrupt: " + at + "value:2: the entry has no value");
  CHECK(bad("path", head + "\n" + R"({"seq": 1, "path": 7, "kind": "llm", "key": "", "asked": "", "value": 1})") ==
        "journal.corrupt: " + at + "path:2: the entry's path is not text");
}
