#include "engine/net/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"

extern char** environ;

namespace engine::net {
namespace {

// What every child gets from the engine's environment unless the workflow sets it: what a program needs to find
// its interpreter and home, as the MCP SDKs' stdio transports pass on. Nothing else: keys stay in the engine.
const char* const kInherited[] = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"};

struct Pipe {
  int read = -1, write = -1;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorKind::ProcessSpawn, std::string("cannot make a pipe: ") + std::strerror(errno));
  return {fds[0], fds[1]};
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The program as posix_spawn needs it: a name without '/' is looked up on the child's PATH (not the engine's), as a
// shell run with that environment would.
std::string resolve(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) return program;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  throw Error(ErrorKind::ProcessSpawn, "cannot start '" + program + "': not found on the PATH given to it");
}

// A write to a child that has closed its stdin raises SIGPIPE, whose default kills the engine: the signal is held
// for the write and any that came is taken back.
ssize_t write_without_sigpipe(int fd, const char* data, size_t n) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  ssize_t written = ::write(fd, data, n);
  int saved = errno;
  if (written < 0 && saved == EPIPE) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &zero) > 0) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved;
  return written;
}

[[noreturn]] void timed_out_or_stopped(const Cancel* cancel, const std::string& program, const char* what) {
  if (cancel && cancel->stopped()) throw_stopped(*cancel);
  throw Error(ErrorKind::ProcessTimeout, "'" + program + "' " + what);
}

}  // namespace

ChildProcess::ChildProcess(const ProcessSpec& spec, DescriptorWatch& watch) : watch_(watch), program_(spec.program) {
  std::vector<std::string> env;
  for (const char* name : kInherited) {
    bool set_here = false;
    for (const auto& [k, v] : spec.env) set_here = set_here || k == name;
    if (const char* value = std::getenv(name); value && !set_here) env.push_back(std::string(name) + "=" + value);
  }
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  for (const auto& [k, v] : spec.env) {
    env.push_back(k + "=" + v);
    if (k == "PATH") path = v;
  }
  std::string executable = resolve(spec.program, path);

  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write, 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so stop() reaches what it starts in turn (npx starts node); signals as by default.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv{const_cast<char*>(spec.program.c_str())};
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int rc = posix_spawn(&pid_, executable.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in.read);
  ::close(out.write);
  ::close(err.write);
  if (rc != 0) {
    ::close(in.write);
    ::close(out.read);
    ::close(err.read);
    pid_ = -1;
    throw Error(ErrorKind::ProcessSpawn, "cannot start '" + spec.program + "': " + std::strerror(rc) +
                                     (spec.cwd.empty() ? "" : " (in " + spec.cwd.string() + ")"));
  }
  stdin_fd_ = in.write;
  stdout_fd_ = out.read;
  stderr_fd_ = err.read;
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) set_nonblocking(fd);
  watch_.follow(stderr_fd_, [this] { return drain_stderr(); });
}

ChildProcess::~ChildProcess() { stop(); }

bool ChildProcess::drain_stderr() {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(stderr_fd_, buf, sizeof buf);
    if (n > 0) {
      std::lock_guard<std::mutex> lock(stderr_mu_);
      stderr_.append(buf, static_cast<size_t>(n));
      if (stderr_.size() > 2 * kStderrKept) stderr_.erase(0, stderr_.size() - kStderrKept);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);  // 0: the child closed it
  }
}

std::string ChildProcess::stderr_tail() const {
  std::lock_guard<std::mutex> lock(stderr_mu_);
  if (stderr_.size() <= kStderrKept) return stderr_;
  return stderr_.substr(stderr_.size() - kStderrKept);
}

size_t ChildProcess::write_some(std::string_view bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    if (stdin_fd_ < 0) throw Error(ErrorKind::ProcessExited, "'" + program_ + "' is no longer running");
    ssize_t n = write_without_sigpipe(stdin_fd_, bytes.data() + written, bytes.size() - written);
    if (n > 0) {
      written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    throw Error(ErrorKind::ProcessExited, "'" + program_ + "' stopped reading its input (" + std::strerror(errno) + ")");
  }
  return written;
}

void ChildProcess::follow_lines(size_t max_bytes, LineHandler on_line, EndHandler on_end) {
  max_line_ = max_bytes;
  on_line_ = std::move(on_line);
  on_end_ = std::move(on_end);
  following_stdout_ = true;
  watch_.follow(stdout_fd_, [this] { return drain_stdout(); });
}

bool ChildProcess::drain_stdout() {
  // A child that writes without pause would keep the watch's thread here: after this much, the other descriptors
  // get their turn (epoll reports this one again).
  constexpr size_t kTurn = size_t{1} << 20;
  char buf[65536];
  size_t taken = 0;
  while (taken < kTurn) {
    ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) {
      on_end_("'" + program_ + "' closed its output");
      return false;
    }
    taken += static_cast<size_t>(n);
    size_t scanned = pending_.size();
    pending_.append(buf, static_cast<size_t>(n));
    size_t start = 0;
    bool too_long = false;
    for (size_t eol; !too_long && (eol = pending_.find('\n', scanned)) != std::string::npos; scanned = start = eol + 1) {
      std::string_view line(pending_.data() + start, eol - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      too_long = line.size() > max_line_;
      if (!too_long) on_line_(line);
    }
    if (too_long || pending_.size() - start > max_line_ + 1) {
      ::kill(-pid_, SIGKILL);
      on_end_("'" + program_ + "' wrote a line longer than " + std::to_string(max_line_) + " bytes; it was stopped");
      pending_.clear();
      return false;
    }
    pending_.erase(0, start);
  }
  return true;
}

void ChildProcess::write(std::string_view bytes, std::optional<SteadyTime> deadline, const Cancel* cancel) {
  while (!bytes.empty()) {
    if (stdin_fd_ < 0) throw Error(ErrorKind::ProcessExited, "'" + program_ + "' is no longer running");
    ssize_t n = write_without_sigpipe(stdin_fd_, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!watch_.wait(stdin_fd_, true, deadline, cancel)) timed_out_or_stopped(cancel, program_, "did not read its input in time");
      continue;
    }
    throw Error(ErrorKind::ProcessExited, "'" + program_ + "' stopped reading its input (" + std::strerror(errno) + ")");
  }
}

std::optional<std::string> ChildProcess::read_line(size_t max_bytes, std::optional<SteadyTime> deadline,
                                                   const Cancel* cancel) {
  size_t scanned = 0;
  for (;;) {
    size_t eol = pending_.find('\n', scanned);
    if (eol != std::string::npos && eol <= max_bytes + 1) {
      std::string line = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (pending_.size() > max_bytes + 1) {
      stop(std::chrono::milliseconds(100));
      throw Error(ErrorKind::ProcessLineTooLong, "'" + program_ + "' wrote a line longer than " + std::to_string(max_bytes) +
                                               " bytes; it was stopped");
    }
    scanned = pending_.size();
    if (stdout_ended_) {
      if (pending_.empty()) return std::nullopt;
      std::string last = std::move(pending_);  // a last line without its line end
      pending_.clear();
      return last;
    }
    char buf[65536];
    ssize_t n = stdout_fd_ < 0 ? 0 : ::read(stdout_fd_, buf, sizeof buf);
    if (n > 0) {
      pending_.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      stdout_ended_ = true;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!watch_.wait(stdout_fd_, false, deadline, cancel)) timed_out_or_stopped(cancel, program_, "did not answer in time");
    } else if (errno != EINTR) {
      stdout_ended_ = true;
    }
  }
}

bool ChildProcess::reap(bool block) {
  if (reaped_ || pid_ < 0) return true;
  int status = 0;
  pid_t got;
  do {
    got = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == pid_ || (got < 0 && errno == ECHILD)) {
    reaped_ = true;
    status_ = status;
  }
  return reaped_;
}

bool ChildProcess::exited() { return reap(false); }

void ChildProcess::stop(std::chrono::milliseconds grace) {
  close_fd(stdin_fd_);  // a well-behaved server ends when its input does
  if (following_stdout_ && stdout_fd_ >= 0) {
    // Nobody reads its output from here on: closed, so a child still writing ends (EPIPE) instead of blocking.
    watch_.forget(stdout_fd_);
    close_fd(stdout_fd_);
  }
  auto wait_for_exit = [&](std::chrono::milliseconds d) {
    auto until = std::chrono::steady_clock::now() + d;
    while (!reap(false) && std::chrono::steady_clock::now() < until)
      sleep_until(std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(5)));
    return reaped_;
  };
  if (pid_ > 0 && !wait_for_exit(grace)) {
    ::kill(-pid_, SIGTERM);
    if (!wait_for_exit(grace)) {
      ::kill(-pid_, SIGKILL);
      reap(true);
    }
  }
  if (stderr_fd_ >= 0) {
    watch_.forget(stderr_fd_);
    close_fd(stderr_fd_);
  }
  close_fd(stdout_fd_);
}

}  // namespace engine::net
