// Locks on files several engine processes may name: readers share, a writer is alone, a writer's file is never a
// symlink, and a lock is always on the file the name holds, even when it was replaced meanwhile.
#include <catch2/catch.hpp>

#include <fcntl.h>

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lock.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

TEST_CASE("file lock: readers share a file, a writer holds it alone", "[core][file]") {
  test::TempDir dir;
  auto path = dir.write("r.jsonl", "");
  auto first = open_locked(path, O_RDONLY, LockMode::Shared);
  auto second = open_locked(path, O_RDONLY, LockMode::Shared);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(!open_locked(path, O_RDWR, LockMode::Exclusive));
  first.reset();
  second.reset();
  auto writer = open_locked(path, O_RDWR, LockMode::Exclusive);
  REQUIRE(writer);
  CHECK(!open_locked(path, O_RDONLY, LockMode::Shared));
  CHECK(!open_locked(path, O_RDWR, LockMode::Exclusive));
}

TEST_CASE("file lock: a writer never opens a symlink, and creates with the permissions asked", "[core][file]") {
  test::TempDir dir;
  auto victim = dir.write("victim.txt", "keep\n");
  auto link = dir.path() / "link.jsonl";
  std::filesystem::create_symlink(victim, link);
  std::string kind;
  CHECK(test::error_of([&] { open_locked(link, O_RDWR | O_APPEND, LockMode::Exclusive); }, &kind) ==
        "'" + link.string() + "' is a symbolic link; name the file it points to");
  CHECK(kind == "io.write_failed");
  CHECK(open_locked(link, O_RDONLY, LockMode::Shared));  // a reader may follow one
  auto made = dir.path() / "new.jsonl";
  REQUIRE(open_locked(made, O_RDWR | O_CREAT, LockMode::Exclusive, 0600));
  CHECK((std::filesystem::status(made).permissions() & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
}

// A writer replaces its file by renaming a new one over the name, the new one locked first: the lock holds on the
// name from the rename's first instant, and a lock taken on the old file before does not carry over.
TEST_CASE("file lock: a file replaced by rename is held by the writer that locked it before the rename", "[core][file]") {
  test::TempDir dir;
  auto path = dir.write("r.jsonl", "old\n");
  FileReplacement next(path);
  next.write("new\n");
  REQUIRE(try_lock(next.descriptor(), LockMode::Exclusive));
  auto reader = open_locked(path, O_RDONLY, LockMode::Shared);  // before the rename: the old file, free
  REQUIRE(reader);
  next.commit();
  FileDescriptor held = next.release_descriptor();
  CHECK(!open_locked(path, O_RDONLY, LockMode::Shared));  // the name now holds the new file, locked
  CHECK(read_file(path) == "new\n");
}
