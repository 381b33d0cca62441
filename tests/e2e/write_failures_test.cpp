// Every write the engine makes is checked: an answer, a --json document, a report or a trace that does not reach its
// file or its reader is an error (exit non-zero), never a success; a device or a pipe named as an output is written
// as a shell's `>` writes it, never replaced by a file; a FIFO is never waited on.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <catch2/catch.hpp>

#include "support/test_support.h"

using namespace engine;

namespace {

// A device that takes no byte (ENOSPC), as /dev/full: made in the test's folder when the tests run as root (as CI
// does), so that a regression replacing it with a file costs the machine nothing; /dev/full itself otherwise.
std::string full_device(const test::TempDir& dir) {
  std::string made = (dir.path() / "full").string();
  if (::mknod(made.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) return made;
  return "/dev/full";
}

bool is_character_device(const std::string& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 && S_ISCHR(s.st_mode);
}

// The engine with its stdout on `target` (stderr captured as usual).
test::CommandResult engine_writing_to(const std::string& target, const std::string& args) {
  return test::run_command("sh -c " + test::shell_quote(test::shell_quote(ENGINE_BIN) + " " + args + " >" +
                                                       test::shell_quote(target)));
}

const char* const kStdoutLost =
    "engine: error[io.write_failed]: cannot write the output to stdout (a full disk, or a reader that stopped "
    "reading)\n";

}  // namespace

TEST_CASE("write failures: an answer, a --json document or a listing that stdout cannot take is an error, exit 1",
          "[e2e][hostile]") {
  for (const std::string args : {"run workflows/calculator.yaml -q --no-store --input '2+2'",
                                 "run workflows/calculator.yaml -q --no-store --json --input '2+2'", "schema",
                                 "test workflows/calculator.test.yaml"}) {
    INFO(args);
    auto r = engine_writing_to("/dev/full", args);
    CHECK(r.exit_code == 1);
    CHECK(r.err.size() >= std::string(kStdoutLost).size());
    CHECK(r.err.substr(r.err.size() - std::string(kStdoutLost).size()) == kStdoutLost);
  }
  // /dev/null takes everything: that is a success.
  CHECK(engine_writing_to("/dev/null", "schema").exit_code == 0);
}

TEST_CASE("write failures: a --junit report to a full device is an error and the device stays a device",
          "[e2e][hostile]") {
  test::TempDir dir;
  std::string full = full_device(dir);
  auto r = test::run_engine("test workflows/calculator.test.yaml --junit " + test::shell_quote(full));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[io.write_failed]: cannot write '" + full + "': No space left on device\n");
  CHECK(is_character_device(full));
  // The process's own stdout (a file here) is written through its descriptor, never renamed over: /dev/stdout stays
  // the system's link.
  auto out = test::run_engine("test workflows/calculator.test.yaml --junit /dev/stdout");
  CHECK(out.exit_code == 0);
  CHECK(out.out.find("5 tests: 5 passed, 0 failed\n<?xml") != std::string::npos);
  struct stat link {};
  CHECK((::lstat("/dev/stdout", &link) == 0 && S_ISLNK(link.st_mode)));
}

TEST_CASE("write failures: a FIFO nobody reads is refused at once as a report and as a chat session",
          "[e2e][hostile]") {
  test::TempDir dir;
  std::string fifo = (dir.path() / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto report = test::run_engine("test workflows/calculator.test.yaml --junit " + test::shell_quote(fifo));
  CHECK(report.exit_code == 2);
  CHECK(report.err == "engine: error[io.write_failed]: cannot write '" + fifo + "': it is a pipe nobody reads\n");
  auto chat = test::run_engine("chat workflows/calculator.yaml --no-store --session " + test::shell_quote(fifo), "2+2\n");
  CHECK(chat.exit_code == 2);
  CHECK(chat.err == "engine: error[io.write_failed]: the session file '" + fifo +
                        "' is not a regular file (a pipe, a device or a folder); give a file's name\n");
  struct stat s {};
  CHECK((::stat(fifo.c_str(), &s) == 0 && S_ISFIFO(s.st_mode)));
}

TEST_CASE("write failures: a --trace file on a full device is an error after the answer", "[e2e][hostile]") {
  test::TempDir dir;
  std::string full = full_device(dir);
  auto r = test::run_engine("run workflows/calculator.yaml -q --no-store --input '2+2' --trace " + test::shell_quote(full));
  CHECK(r.exit_code == 2);
  CHECK(r.out == "4\n");
  CHECK(r.err == "engine: error[io.write_failed]: cannot write the trace file '" + full +
                     "': some of its events were lost\n");
  // A chat's trace too, once the chat ends (a chat writes through the same observers as a run).
  auto chat = test::run_engine("chat workflows/calculator.yaml -q --no-store --trace " + test::shell_quote(full), "2+2\n");
  CHECK(chat.exit_code == 2);
  CHECK(chat.out == "4\n");
  CHECK(chat.err == "engine: error[io.write_failed]: cannot write the trace file '" + full +
                        "': some of its events were lost\n");
}
