// Files are read bounded: no device, no directory, no file past the size limit; a pipe is fine.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

TEST_CASE("file: a regular file is read whole", "[core][file]") {
  test::TempDir dir;
  auto f = dir.write("a.txt", std::string("x\0y", 3));
  CHECK(read_file(f) == std::string("x\0y", 3));
  CHECK(read_file(dir.write("empty.txt", "")) == "");
}

TEST_CASE("file: devices, directories and missing files are clear errors", "[core][file]") {
  std::string kind;
  CHECK(test::error_of([] { read_file("/dev/zero"); }, &kind) ==
        "cannot read '/dev/zero': not a regular file (a device or a socket)");
  CHECK(kind == "io.read_failed");
  CHECK(test::error_of([] { read_file("/dev/urandom"); }, &kind) ==
        "cannot read '/dev/urandom': not a regular file (a device or a socket)");
  CHECK(test::error_of([] { read_file("/tmp"); }) == "cannot read '/tmp': it is a directory");
  CHECK(test::error_of([] { read_file("/nonexistent/x"); }) == "cannot read '/nonexistent/x': No such file or directory");
}

TEST_CASE("file: past the size limit is io.too_large, by its size or by what it holds", "[core][file]") {
  test::TempDir dir;
  auto big = dir.write("big.txt", "");
  std::filesystem::resize_file(big, (size_t{1} << 30) * 4);  // sparse: 4 GiB claimed, nothing written
  std::string kind;
  CHECK(test::error_of([&] { read_file(big); }, &kind) ==
        "cannot read '" + big.string() + "': it is 4096 MiB, more than the 16 MiB a file may have");
  CHECK(kind == "io.too_large");
  CHECK(test::error_of([&] { read_file(dir.write("s.txt", std::string(100, 'x')), 64); }, &kind) ==
        "cannot read '" + (dir.path() / "s.txt").string() + "': it is 100 bytes, more than the 64 bytes a file may have");
  // files under /proc report a size of 0: the bound holds on what is read
  CHECK(test::error_of([] { read_file("/proc/self/maps", 16); }, &kind) ==
        "cannot read '/proc/self/maps': it holds more than the 16 bytes a file may have");
  CHECK(kind == "io.too_large");
}

TEST_CASE("file: a pipe is read to its end when allowed, refused when not", "[core][file]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  REQUIRE(write(fds[1], "{\"a\": 1}", 8) == 8);
  close(fds[1]);
  std::string name = "/dev/fd/" + std::to_string(fds[0]);
  CHECK(test::error_of([&] { read_file(name); }) == "cannot read '" + name + "': a pipe, where a regular file belongs");
  CHECK(read_file(name, limits::kFileBytes, Pipes::Allowed) == "{\"a\": 1}");
  close(fds[0]);
  // a FIFO nobody writes to, where a workflow names a file: refused at once, never a blocked load
  test::TempDir dir;
  auto fifo = dir.path() / "prompt.j2";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(test::error_of([&] { read_file(fifo); }) == "cannot read '" + fifo.string() + "': a pipe, where a regular file belongs");
}

TEST_CASE("file: a replacement is whole or absent, keeps the old file's permissions, and follows no planted symlink",
          "[core][file]") {
  test::TempDir dir;
  auto path = dir.write("report.xml", "old\n");
  ::chmod(path.c_str(), 0640);
  auto victim = dir.write("victim.txt", "keep\n");
  std::filesystem::create_symlink(victim, dir.path() / "report.xml.new");  // where the file beside it once went
  {
    FileReplacement r(path);
    r.write("new\n");
    CHECK(read_file(path) == "old\n");  // nothing shows before commit
    r.commit();
  }
  CHECK(read_file(path) == "new\n");
  CHECK(read_file(victim) == "keep\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  { FileReplacement dropped(path); dropped.write("half"); }  // dropped without commit: the old file stays
  CHECK(read_file(path) == "new\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 3);  // report.xml, victim.txt and the planted link: nothing left beside them
  std::string kind;
  auto nowhere = dir.path() / "no-such-folder" / "r.xml";
  CHECK(test::error_of([&] { FileReplacement r(nowhere); }, &kind) ==
        "cannot write '" + nowhere.string() + "': No such file or directory");
  CHECK(kind == "io.write_failed");
}
