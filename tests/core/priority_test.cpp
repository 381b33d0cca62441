// A thread's lowered priority: its own, inherited by the threads it starts, never raised.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/core/priority.h"

using namespace engine;

TEST_CASE("lowering a thread's priority reaches the threads it starts and never raises it", "[core][priority]") {
  int outside = current_niceness();
  int lowered = -1, inherited = -1, kept = -1;
  std::thread([&] {
    REQUIRE(lower_priority(outside + 3));
    lowered = current_niceness();
    std::thread([&] { inherited = current_niceness(); }).join();
    REQUIRE(lower_priority(outside + 1));
    kept = current_niceness();
  }).join();
  CHECK(lowered == outside + 3);
  CHECK(inherited == outside + 3);
  CHECK(kept == outside + 3);
  CHECK(current_niceness() == outside);  // the caller's own is untouched
}
