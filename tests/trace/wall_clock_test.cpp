// Steady times placed on the wall clock by one pair of readings, and back: what spans and the run store stamp runs with.
#include <catch2/catch.hpp>

#include "engine/trace/wall_clock.h"

using namespace std::chrono;
using engine::trace::WallClock;

TEST_CASE("wall clock: steady times placed on the wall by one reading, and back", "[trace]") {
  steady_clock::time_point zero = steady_clock::now();
  WallClock clock(zero, system_clock::time_point(seconds(1'800'000'000)));
  CHECK(clock.unix_ms(zero) == 1'800'000'000'000);
  CHECK(clock.unix_nanos(zero + milliseconds(1500) + nanoseconds(7)) == 1'800'000'001'500'000'007);
  CHECK(clock.unix_ms(zero - seconds(2)) == 1'799'999'998'000);  // before the reading, as a stored run is
  CHECK(clock.steady(system_clock::time_point(seconds(1'799'999'990))) == zero - seconds(10));
  WallClock now;
  auto at = steady_clock::now();
  CHECK(now.steady(now.wall(at)) == at);
}
