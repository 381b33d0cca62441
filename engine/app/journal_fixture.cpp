#include "engine/app/journal_fixture.h"

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lines.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::app {
namespace {

constexpr int64_t kFixtureFormat = 1;

}  // namespace

std::pair<std::string, size_t> write_journal_fixture(store::RunStore& store, const std::string& id,
                                                     const std::filesystem::path& file) {
  std::optional<store::JournalRun> run = store.find_journal(id);
  if (!run) throw Error(ErrorKind::StoreNoSuchRun, "no journaled run's id starts with '" + id + "' in " + store.file().string());
  std::vector<store::StoredEntry> entries = store.journal_entries(run->id);
  FileReplacement out(file);
  out.write(to_json_text(Value{{"engine_journal", kFixtureFormat}, {"run", run->id}, {"workflow", run->workflow},
                               {"inputs", run->inputs}}) + "\n");
  for (const store::StoredEntry& s : entries) {
    const JournalEntry& e = s.entry;
    out.write(to_json_text(Value{{"seq", s.seq}, {"path", e.path}, {"kind", name_of(e.kind)}, {"key", e.key},
                                 {"asked", e.asked}, {"value", e.value}}) + "\n");
  }
  out.commit();
  return {run->id, entries.size()};
}

JournalFixture read_journal_fixture(const std::filesystem::path& file) {
  FileLines lines(file);
  JournalFixture fixture;
  auto corrupt = [&](const std::string& why) {
    return Error(ErrorKind::JournalCorrupt, file.string() + ":" + std::to_string(lines.line_number()) + ": " + why);
  };
  auto text = [&](const Value& v, const char* name) {
    auto it = v.find(name);
    if (it == v.end() || !it->is_string()) throw corrupt(std::string("the entry's ") + name + " is not text");
    return it->get<std::string>();
  };
  bool header = false;
  int64_t last_seq = 0;
  for (std::string line; lines.next(line);) {
    if (lines.too_long())
      throw Error(ErrorKind::IoTooLarge, file.string() + ":" + std::to_string(lines.line_number()) +
                                             ": a line longer than 16 MiB");
    if (trim(line).empty()) continue;
    JsonError error;
    Value v = parse_json(line, &error);
    if (v.is_discarded()) throw corrupt("not JSON: " + error.message);
    if (!v.is_object()) throw corrupt("not a JSON object");
    if (!header) {
      auto format = v.find("engine_journal");
      if (format == v.end() || !format->is_number_integer())
        throw corrupt("not a journal written by `engine runs export --journal` (its first line has no engine_journal)");
      if (format->get<int64_t>() > kFixtureFormat)
        throw Error(ErrorKind::JournalNewer, file.string() + " was written by a newer engine (journal format " +
                                                 std::to_string(format->get<int64_t>()) + "; this engine reads " +
                                                 std::to_string(kFixtureFormat) + ")");
      fixture.run = text(v, "run");
      fixture.workflow = text(v, "workflow");
      auto inputs = v.find("inputs");
      if (inputs == v.end() || !inputs->is_object()) throw corrupt("its inputs are not an object");
      fixture.inputs = std::move(*inputs);
      header = true;
      continue;
    }
    if (fixture.entries.size() >= limits::kJournalEntries)
      throw corrupt("more than " + std::to_string(limits::kJournalEntries) + " entries");
    store::StoredEntry s;
    auto seq = v.find("seq");
    if (seq == v.end() || !seq->is_number_integer() || seq->get<int64_t>() <= last_seq)
      throw corrupt("the entry's seq is not a number above the one before it");
    s.seq = last_seq = seq->get<int64_t>();
    std::string kind = text(v, "kind");
    auto named = journal_kind_named(kind);
    if (!named) throw corrupt("the entry is of no kind ('" + printable_excerpt(kind, 40) + "')");
    s.entry.kind = *named;
    s.entry.path = text(v, "path");
    s.entry.key = text(v, "key");
    s.entry.asked = text(v, "asked");
    auto value = v.find("value");
    if (value == v.end()) throw corrupt("the entry has no value");
    s.entry.value = std::move(*value);
    fixture.entries.push_back(std::move(s));
  }
  if (!header) throw Error(ErrorKind::JournalCorrupt, file.string() + " is empty: it holds no journal");
  return fixture;
}

}  // namespace engine::app
