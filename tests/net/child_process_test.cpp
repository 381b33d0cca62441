// Child processes over pipes: what they are given (arguments, environment, folder), lines read with a bound and a
// deadline, stderr kept, cancellation, and a stop that always reaps, whatever the child does.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "engine/core/cancel.h"
#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/net/child_process.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::net;
using namespace std::chrono_literals;

namespace {

ProcessSpec shell(const std::string& script) { return ProcessSpec{"sh", {"-c", script}, {}, {}}; }

std::string kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.message();
  }
  return "no error";
}

// True when `pid` is no child of ours any more: reaped, not a zombie.
bool reaped(int pid) { return ::waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD; }

}  // namespace

TEST_CASE("process: lines in and out, stderr kept, and a stop that reaps", "[net][process]") {
  DescriptorWatch watch;
  int pid = 0;
  {
    ChildProcess p(shell("while read l; do echo \"got $l\"; echo \"err $l\" >&2; done"), watch);
    pid = p.pid();
    p.write("one\ntwo\r\n");
    CHECK(p.read_line(100) == "got one");
    CHECK(p.read_line(100) == "got two");  // the child wrote "got two\r\n": a CR LF line end
    test::wait_until([&] { return p.stderr_tail().find("err two") != std::string::npos; }, 1000);
    CHECK(p.stderr_tail() == "err one\nerr two\r\n");
    p.stop(1000ms);  // closing stdin ends the loop: no signal needed
    CHECK(p.exited());
    CHECK(WIFEXITED(p.exit_status()));
  }
  CHECK(reaped(pid));
}

TEST_CASE("process: the child gets the variables it is given and a few a program needs, never the engine's keys",
          "[net][process]") {
  ::setenv("OPENAI_API_KEY", "sk-never-passed-on", 1);
  DescriptorWatch watch;
  test::TempDir dir;
  ProcessSpec spec = shell("echo \"$FOO|$OPENAI_API_KEY|${HOME:+home}|$(pwd)\"");
  spec.env = {{"FOO", "bar"}};
  spec.cwd = dir.path();
  ChildProcess p(spec, watch);
  CHECK(p.read_line(1000) == "bar||home|" + std::filesystem::canonical(dir.path()).string());
  CHECK(p.read_line(1000) == std::nullopt);  // stdout ended
  ::unsetenv("OPENAI_API_KEY");
}

TEST_CASE("process: a program that cannot start is named", "[net][process]") {
  DescriptorWatch watch;
  CHECK(kind_of([&] { ChildProcess p(ProcessSpec{"no-such-program-here", {}, {}, {}}, watch); }) ==
        "process.spawn: cannot start 'no-such-program-here': not found on the PATH given to it");
  ProcessSpec in_nowhere = shell("true");
  in_nowhere.cwd = "/no/such/folder";
  CHECK(kind_of([&] { ChildProcess p(in_nowhere, watch); }) ==
        "process.spawn: cannot start 'sh': No such file or directory (in /no/such/folder)");
}

TEST_CASE("process: a line past the bound, a silent child and a stopped run each end the read", "[net][process]") {
  DescriptorWatch watch;
  ChildProcess flood(shell("head -c 300000 /dev/zero | tr '\\0' a; sleep 30"), watch);
  CHECK(kind_of([&] { flood.read_line(1000); }) ==
        "process.line_too_long: 'sh' wrote a line longer than 1000 bytes; it was stopped");
  CHECK(flood.exited());

  ChildProcess silent(shell("sleep 30"), watch);
  CHECK(kind_of([&] { silent.read_line(100, std::chrono::steady_clock::now() + 100ms); }) ==
        "process.timeout: 'sh' did not answer in time");

  Cancel cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    cancel.cancel();
  });
  CHECK(kind_of([&] { silent.read_line(100, std::nullopt, &cancel); }) == "run.cancelled: the run was cancelled");
  stopper.join();
  silent.stop(50ms);  // sleep does not read its input: closing it ends nothing, SIGTERM does
}

TEST_CASE("process: a child that ignores SIGTERM is killed, and a write to a gone child is an error, not SIGPIPE",
          "[net][process]") {
  DescriptorWatch watch;
  int pid = 0;
  {
    ChildProcess stubborn(shell("trap '' TERM; echo ready; exec sleep 30 < /dev/null"), watch);
    pid = stubborn.pid();
    CHECK(stubborn.read_line(100) == "ready");
    stubborn.stop(100ms);
    CHECK(stubborn.exited());
    // Killed, not waited for: its sleep would have ended it with status 0.
    CHECK(WIFSIGNALED(stubborn.exit_status()));
    CHECK(WTERMSIG(stubborn.exit_status()) == SIGKILL);
  }
  CHECK(reaped(pid));

  ChildProcess gone(shell("exit 3"), watch);
  while (!gone.exited()) std::this_thread::sleep_for(1ms);
  CHECK(WEXITSTATUS(gone.exit_status()) == 3);
  CHECK(kind_of([&] { gone.write(std::string(1 << 20, 'x')); }) ==
        "process.exited: 'sh' stopped reading its input (Broken pipe)");
}

TEST_CASE("process: a fiber waiting for a line gives its thread to others", "[net][process][fiber]") {
  DescriptorWatch watch;
  ChildProcess slow(shell("sleep 0.3; echo late"), watch);
  std::atomic<int> ticks{0};
  std::optional<std::string> line;
  FiberPool pool(1);
  pool.spawn([&] { line = slow.read_line(100); });
  pool.spawn([&] {
    for (int i = 0; i < 20; ++i) {
      sleep_until(std::chrono::steady_clock::now() + 5ms);
      ++ticks;
    }
  });
  pool.join();
  CHECK(line == "late");
  CHECK(ticks == 20);  // ran while the other fiber waited on the pipe, on the pool's one thread
}
