#include "engine/cli/interrupt_watch.h"

#include <pthread.h>
#include <unistd.h>

namespace engine::cli {
namespace {

// Wakes the watcher when the run is over. It needs a disposition other than "ignore", or it would be discarded.
constexpr int kWake = SIGUSR1;
void ignore_wake(int) {}

bool ignored(int sig) {
  struct sigaction current {};
  sigaction(sig, nullptr, &current);
  return current.sa_handler == SIG_IGN;
}

}  // namespace

InterruptWatch::InterruptWatch(std::vector<Cancel*> stages, std::vector<std::string> notices, bool even_if_ignored)
    : stages_(std::move(stages)), notices_(std::move(notices)) {
  struct sigaction wake {};
  wake.sa_handler = ignore_wake;
  sigaction(kWake, &wake, nullptr);
  sigemptyset(&watched_);
  sigaddset(&watched_, kWake);
  std::vector<int> unignore;
  for (int sig : {SIGINT, SIGTERM}) {
    if (ignored(sig)) {
      if (!even_if_ignored) continue;
      unignore.push_back(sig);
    }
    sigaddset(&watched_, sig);
  }
  pthread_sigmask(SIG_BLOCK, &watched_, &previous_);
  // Blocked first, so that the default action never runs: an ignored signal would be discarded, never waited for.
  for (int sig : unignore) {
    ::signal(sig, SIG_DFL);
    reignore_.push_back(sig);
  }
  watcher_ = std::thread([this] {
    for (;;) {
      int sig = 0;
      if (sigwait(&watched_, &sig) != 0) continue;
      if (done_) return;
      if (sig == kWake) continue;
      if (signals_ == 0) signal_ = sig;
      if (signals_ == stages_.size()) _exit(interrupted_exit_code(sig));  // one more: no more waiting
      if (signals_ < notices_.size() && !notices_[signals_].empty()) {
        std::string line = "\n" + notices_[signals_] + "\n";  // off a progress line that may be showing
        [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
      }
      stages_[signals_++]->cancel();
    }
  });
}

InterruptWatch::~InterruptWatch() {
  done_ = true;
  pthread_kill(watcher_.native_handle(), kWake);
  watcher_.join();
  for (int sig : reignore_) ::signal(sig, SIG_IGN);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace engine::cli
