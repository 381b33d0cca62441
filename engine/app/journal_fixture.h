#pragma once
// A stored run's journal as a file of its own (docs/testing.md, "A stored run as a test"): what `engine runs export
// ID --journal FILE` writes and a test's `journal:` replays, so that a run recorded once (a crash, a bug report, a
// run worth keeping) is a test in the repository, answered offline by what it recorded, every tool call included.
// JSON lines: a header {"engine_journal": 1, "run", "workflow", "inputs"}, then each entry {"seq", "path", "kind",
// "key", "asked", "value"} in order (values as the store keeps them: masked; `asked` a digest).
#include <filesystem>
#include <string>
#include <vector>

#include "engine/store/journal_records.h"
#include "engine/store/run_store.h"

namespace engine::app {

struct JournalFixture {
  std::string run;       // the id of the run it was exported from
  std::string workflow;  // that run's workflow's name
  Value inputs = Value::object();
  std::vector<store::StoredEntry> entries;
};

// Writes run `id`'s journal (or the run an id it starts names) from `store` to `file`, replaced whole. Returns the
// run's id and the entries written. Throws Error "store.no_such_run", "journal.corrupt", "journal.newer",
// "io.write_failed".
std::pair<std::string, size_t> write_journal_fixture(store::RunStore& store, const std::string& id,
                                                     const std::filesystem::path& file);

// Reads one back. Throws Error "io.*" (a file that cannot be read, or a line past 16 MiB), "journal.newer" (a
// later format), "journal.corrupt" naming FILE:LINE (a line that is not a JSON object of an entry, an unknown kind,
// entries out of order, more than 1,000,000 of them, no header).
JournalFixture read_journal_fixture(const std::filesystem::path& file);

}  // namespace engine::app
