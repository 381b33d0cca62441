#include "engine/server/run_slots.h"

namespace engine::server {

bool RunSlots::admit(size_t runs) {
  std::lock_guard lock(mu_);
  if (admitted_ + runs > max_running_ + max_waiting_) return false;
  admitted_ += runs;
  return true;
}

void RunSlots::wait_turn() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return running_ < max_running_; });
  ++running_;
}

void RunSlots::ran() {
  {
    std::lock_guard lock(mu_);
    --admitted_;
    --running_;
    ++answering_;
  }
  changed_.notify_all();
}

void RunSlots::answered() {
  {
    std::lock_guard lock(mu_);
    --answering_;
  }
  changed_.notify_all();
}

void RunSlots::release() {
  ran();
  answered();
}

void RunSlots::withdraw(size_t runs) {
  {
    std::lock_guard lock(mu_);
    admitted_ -= runs;
  }
  changed_.notify_all();
}

bool RunSlots::wait_idle(SteadyTime deadline) {
  std::unique_lock lock(mu_);
  while ((admitted_ > 0 || answering_ > 0) && std::chrono::steady_clock::now() < deadline)
    changed_.wait_until(lock, deadline);
  return admitted_ == 0 && answering_ == 0;
}

size_t RunSlots::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

size_t RunSlots::waiting() const {
  std::lock_guard lock(mu_);
  return admitted_ - running_;
}

}  // namespace engine::server
