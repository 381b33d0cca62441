#include "engine/core/cancel.h"


#include "engine/core/error.h"
#include "engine/core/fiber.h"

namespace engine {

Cancel::Cancel(const Cancel* parent, std::optional<Clock::time_point> deadline, std::string timeout_message)
    : deadline_(deadline), timeout_message_(std::move(timeout_message)) {
  if (!parent) return;
  // The earlier deadline wins, and says what timed out.
  if (parent->deadline_ && (!deadline_ || *parent->deadline_ < *deadline_)) {
    deadline_ = parent->deadline_;
    timeout_message_ = parent->timeout_message_;
  }
  link_.emplace(parent->token(), Forward{&source_});
}

std::chrono::milliseconds Cancel::wait_slice(std::chrono::milliseconds at_most) const {
  if (!deadline_) return at_most;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline_ - Clock::now());
  return std::max(std::chrono::milliseconds(0), std::min(left, at_most));
}

bool Cancel::sleep_for(std::chrono::milliseconds d) const {
  auto until = Clock::now() + d;
  if (deadline_ && *deadline_ < until) until = *deadline_;
  Wakeup woken;  // on a fiber, the sleep gives its thread to other fibers
  std::stop_callback wake(source_.get_token(), [&] { woken.signal(); });
  woken.wait_until(until);
  return !stopped();
}

Error stopped_error(const Cancel& cancel) {
  if (cancel.timed_out()) return Error(ErrorKind::RunTimeout, cancel.timeout_message());
  return Error(ErrorKind::RunCancelled, "the run was cancelled");
}

void throw_stopped(const Cancel& cancel) { throw stopped_error(cancel); }

void sleep_or_throw(const Cancel* cancel, std::chrono::milliseconds d) {
  if (!cancel) {
    sleep_until(Cancel::Clock::now() + d);
    return;
  }
  if (!cancel->sleep_for(d)) throw_stopped(*cancel);
}

}  // namespace engine
