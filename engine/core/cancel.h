#pragma once
// Why a run may have to end before it is done: someone asked (SIGINT, a caller giving up) or a deadline passed (a
// step's timeout). Whatever blocks in a run (an HTTP request, a retry's wait, a scripted latency) watches one, so a
// stop takes effect within milliseconds rather than after the call it interrupts.
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>

#include "engine/core/error.h"

namespace engine {

class Cancel {
 public:
  using Clock = std::chrono::steady_clock;

  Cancel() = default;  // stops only when cancel() is called
  // Stops when `parent` (if any; it must outlive this) does, when cancel() is called, or at `deadline`;
  // `timeout_message` says what timed out ("step 'fetch' took longer than its timeout of 30 s").
  Cancel(const Cancel* parent, std::optional<Clock::time_point> deadline, std::string timeout_message);
  Cancel(const Cancel&) = delete;
  Cancel& operator=(const Cancel&) = delete;

  // Safe from any thread; not from a signal handler (cli/ turns a signal into a call from a thread).
  void cancel() { source_.request_stop(); }
  bool stopped() const { return source_.stop_requested() || deadline_passed(); }
  // Whether a stop came from a deadline rather than cancel(); what timed out.
  bool timed_out() const { return !source_.stop_requested() && deadline_passed(); }
  const std::string& timeout_message() const { return timeout_message_; }
  // Woken when cancel() is called here or on a parent (not when a deadline passes: watch deadline() for that).
  std::stop_token token() const { return source_.get_token(); }
  std::optional<Clock::time_point> deadline() const { return deadline_; }
  // How long a blocking wait may last before it must look again: `at_most`, cut to the deadline.
  std::chrono::milliseconds wait_slice(std::chrono::milliseconds at_most) const;

  // Sleeps for `d`, or less when the run stops; returns false when it stopped.
  bool sleep_for(std::chrono::milliseconds d) const;

 private:
  struct Forward {
    std::stop_source* to;
    void operator()() const { to->request_stop(); }
  };
  bool deadline_passed() const { return deadline_ && Clock::now() >= *deadline_; }

  std::stop_source source_;
  std::optional<Clock::time_point> deadline_;
  std::string timeout_message_;
  std::optional<std::stop_callback<Forward>> link_;
};

// The Error a stopped run ends with: "run.cancelled", or "run.timeout" naming what timed out.
Error stopped_error(const Cancel& cancel);
[[noreturn]] void throw_stopped(const Cancel& cancel);

// Sleeps for `d` on `cancel` when there is one; throws as throw_stopped when the run stops meanwhile.
void sleep_or_throw(const Cancel* cancel, std::chrono::milliseconds d);

}  // namespace engine
