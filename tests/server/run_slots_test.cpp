// The server's run slots: runs past the slots and the queue refused, a slot free once its run has run, and an idle
// server one whose runs have all been answered.
#include <catch2/catch.hpp>

#include <chrono>

#include "engine/server/run_slots.h"

using namespace engine;
using namespace engine::server;

TEST_CASE("run slots: a slot is free once its run has run, and the server is idle once the run has answered",
          "[server][runs]") {
  RunSlots slots(1, 0);
  REQUIRE(slots.admit());
  slots.wait_turn();
  CHECK_FALSE(slots.admit());  // the one slot is taken and nobody may wait
  slots.ran();
  CHECK(slots.running() == 0);
  auto now = std::chrono::steady_clock::now();
  CHECK_FALSE(slots.wait_idle(now));  // its answer is still on its way
  REQUIRE(slots.admit());             // yet the next run is taken
  slots.withdraw();
  slots.answered();
  CHECK(slots.wait_idle(std::chrono::steady_clock::now()));
}
