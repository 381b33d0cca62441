#pragma once
// Events are stamped with the steady clock (never set back, so durations hold); spans and the run store need the wall
// clock. One pair of readings, taken together, places every steady time on it, so the times of one process stay
// consistent with each other even if the wall clock is set meanwhile.
#include <chrono>
#include <cstdint>

namespace engine::trace {

class WallClock {
 public:
  using Steady = std::chrono::steady_clock;
  using System = std::chrono::system_clock;

  WallClock() : steady_(Steady::now()), wall_(System::now()) {}
  WallClock(Steady::time_point steady, System::time_point wall) : steady_(steady), wall_(wall) {}  // `steady` read when the wall clock read `wall`

  System::time_point wall(Steady::time_point at) const {
    return wall_ + std::chrono::duration_cast<System::duration>(at - steady_);
  }
  // The steady time at which the wall clock read `at` (before now for a run that was recorded).
  Steady::time_point steady(System::time_point at) const {
    return steady_ + std::chrono::duration_cast<Steady::duration>(at - wall_);
  }
  int64_t unix_nanos(Steady::time_point at) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(wall(at).time_since_epoch()).count();
  }
  int64_t unix_ms(Steady::time_point at) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(wall(at).time_since_epoch()).count();
  }

 private:
  Steady::time_point steady_;
  System::time_point wall_;
};

}  // namespace engine::trace
