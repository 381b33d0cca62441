#pragma once
// How many runs a server has going: at most `in_flight` at once, at most `queued` more waiting their turn; past
// that a request is turned away (429 with Retry-After) rather than left to pile up in memory.
#include <cstddef>
#include <mutex>

#include "engine/core/fiber.h"

namespace engine::server {

class RunSlots {
 public:
  RunSlots(size_t in_flight, size_t queued) : max_running_(in_flight), max_waiting_(queued) {}

  // Counts `runs` runs in (running or waiting), all or none; false when there is no room for them all.
  bool admit(size_t runs = 1);
  // How many runs can be admitted at once at most: the slots and the places to wait.
  size_t capacity() const { return max_running_ + max_waiting_; }
  // On the run's fiber, after admit(): waits for a free slot.
  void wait_turn();
  // A run that had its turn has run: its slot is free for the next; it still counts as going until answered() (a
  // server that shuts down waits for its answer).
  void ran();
  void answered();
  // A run that had its turn has ended: ran() and answered().
  void release();
  // `runs` admitted runs will never take their turn (they could not be started).
  void withdraw(size_t runs = 1);
  // Until no run is admitted and none is answering, or `deadline`; true when none is.
  bool wait_idle(SteadyTime deadline);

  size_t running() const;
  size_t waiting() const;

 private:
  const size_t max_running_;
  const size_t max_waiting_;
  mutable std::mutex mu_;
  Condition changed_;
  size_t admitted_ = 0;
  size_t running_ = 0;
  size_t answering_ = 0;
};

}  // namespace engine::server
