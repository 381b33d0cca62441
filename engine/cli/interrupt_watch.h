#pragma once
// Turns Ctrl-C (SIGINT) and SIGTERM into a cancelled run. A signal handler may not take locks, so the signals are
// blocked and a thread waits for them; the first one cancels the run, which then ends within milliseconds, and a
// second one ends the process at once, as a user pressing Ctrl-C twice expects.
#include <signal.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/cancel.h"

namespace engine::cli {

class InterruptWatch {
 public:
  // Must be made before the run starts any thread, which inherits the blocked signals. A signal the process was
  // started ignoring (a background job's SIGINT) stays ignored.
  explicit InterruptWatch(Cancel& cancel) : InterruptWatch(std::vector<Cancel*>{&cancel}) {}
  // In stages, as a batch stops: the first signal cancels stages[0] (no new runs), the next stages[1] (the runs in
  // flight), and one more ends the process. `notices[i]`, when given, is written to stderr as stage i begins.
  // `even_if_ignored`: watch SIGINT and SIGTERM even when the process was started ignoring them (a shell script's
  // background job), so that `kill -INT` stops it as Ctrl-C would.
  explicit InterruptWatch(std::vector<Cancel*> stages, std::vector<std::string> notices = {},
                          bool even_if_ignored = false);
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // The signal that cancelled the run, or 0.
  int signal() const { return signal_; }

 private:
  sigset_t watched_;
  sigset_t previous_;
  std::atomic<bool> done_{false};
  std::atomic<int> signal_{0};
  std::vector<Cancel*> stages_;
  std::vector<std::string> notices_;
  std::vector<int> reignore_;  // signals the process was started ignoring, watched anyway: ignored again at the end
  size_t signals_ = 0;  // the watcher's alone
  std::thread watcher_;
};

// The exit code of a run that a signal cancelled: 128 + the signal, as shells report it.
inline int interrupted_exit_code(int signal) { return 128 + signal; }

}  // namespace engine::cli
