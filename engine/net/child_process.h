#pragma once
// A child process the engine talks to over pipes (an MCP server over stdio): started with its arguments, its own
// environment and folder; lines read from its stdout with a bound, bytes written to its stdin, its stderr kept
// (the tail of it) for error messages. Waits go through a DescriptorWatch, so a fiber waiting for a line gives its
// thread up. Stopping closes stdin, waits, then SIGTERM, then SIGKILL, and always reaps: no zombie is left.
// One reader and one writer at a time.
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/net/descriptor_watch.h"

namespace engine::net {

struct ProcessSpec {
  std::string program;             // looked up on the child's PATH when it has no '/'
  std::vector<std::string> args;   // after the program's name
  // The child's environment: these, beside the few every process needs and the MCP SDKs pass on (HOME, LOGNAME,
  // PATH, SHELL, TERM, USER, when the engine has them). Nothing else of the engine's reaches it: no API key.
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path cwd;       // empty: the engine's own
};

class ChildProcess {
 public:
  static constexpr size_t kStderrKept = size_t{64} << 10;

  // Throws Error "process.spawn" naming the program when it cannot be started (not found, not executable).
  ChildProcess(const ProcessSpec& spec, DescriptorWatch& watch);
  ~ChildProcess();  // stop()
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes all of `bytes` to stdin. Throws Error "process.exited" when the child no longer reads,
  // "process.timeout" at `deadline`, as throw_stopped when `cancel` stops.
  void write(std::string_view bytes, std::optional<SteadyTime> deadline = std::nullopt, const Cancel* cancel = nullptr);
  // The next line of stdout without its line end (LF or CR LF), or nullopt once stdout has ended. Throws Error
  // "process.line_too_long" for a line past `max_bytes` (the child is then stopped: its stream has no frame left),
  // "process.timeout", or as throw_stopped.
  std::optional<std::string> read_line(size_t max_bytes, std::optional<SteadyTime> deadline = std::nullopt,
                                       const Cancel* cancel = nullptr);
  // Hands each line of stdout (without its line end) to `on_line` as it arrives, on the watch's thread: for one reader
  // that serves many waiters (the answers to an MCP server's calls in flight). `on_end` is called once, on that
  // thread, when stdout ends or a line passes `max_bytes` (the child is then killed: its stream has no frame left);
  // its argument says which. Instead of read_line, never beside it. The handlers must not wait.
  using LineHandler = std::function<void(std::string_view line)>;
  using EndHandler = std::function<void(const std::string& why)>;
  void follow_lines(size_t max_bytes, LineHandler on_line, EndHandler on_end);
  // Writes what it can of `bytes` without waiting and returns how much went: for a thread that must not wait (a
  // follower answering the child). Throws Error "process.exited" when the child no longer reads.
  size_t write_some(std::string_view bytes);

  // What the child wrote to stderr, its last kStderrKept bytes.
  std::string stderr_tail() const;
  // Whether it has exited (reaped here); its status then is exit_status().
  bool exited();
  int exit_status() const { return status_; }  // waitpid's status, when exited()
  int pid() const { return pid_; }
  // Closes stdin, waits `grace` for the child to end, then sends its process group SIGTERM, waits `grace` again,
  // then SIGKILL, and reaps it. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

 private:
  bool drain_stderr();  // on the watch's thread; false once stderr has ended
  bool drain_stdout();  // on the watch's thread, when following lines; false once it has ended
  bool reap(bool block);

  DescriptorWatch& watch_;
  std::string program_;
  int pid_ = -1;
  int stdin_fd_ = -1, stdout_fd_ = -1, stderr_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string pending_;  // stdout read past the last line returned
  bool stdout_ended_ = false;
  bool following_stdout_ = false;
  size_t max_line_ = 0;
  LineHandler on_line_;
  EndHandler on_end_;
  mutable std::mutex stderr_mu_;
  std::string stderr_;
};

}  // namespace engine::net
