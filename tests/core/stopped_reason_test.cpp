// Why a run stopped: each reason's name read back as the reason, and an error's kind as the reason it gives.
#include <catch2/catch.hpp>

#include "engine/core/stopped_reason.h"

using namespace engine;

TEST_CASE("every stopped reason is named once and read back from its name", "[core]") {
  CHECK(stopped_reason_names() == std::vector<std::string>{"finish", "return_direct", "max_iterations",
                                                           "max_execution_time", "max_tokens_total", "max_cost",
                                                           "error", "cancelled", "timeout"});
  for (const std::string& name : stopped_reason_names()) {
    auto reason = stopped_reason_named(name);
    REQUIRE(reason);
    CHECK(name_of(*reason) == name);
  }
  CHECK_FALSE(stopped_reason_named("done"));
  CHECK_FALSE(stopped_reason_named(""));
  // Every value has its own name (a value the table lacked would be named as the first).
  for (int r = 0; r <= static_cast<int>(StoppedReason::Timeout); ++r)
    CHECK(stopped_reason_named(name_of(static_cast<StoppedReason>(r))) == static_cast<StoppedReason>(r));
}

TEST_CASE("a failed run's stopped reason comes from its error's kind", "[core]") {
  CHECK(stopped_reason_of(ErrorKind::RunCancelled) == StoppedReason::Cancelled);
  CHECK(stopped_reason_of(ErrorKind::RunTimeout) == StoppedReason::Timeout);
  CHECK(stopped_reason_of(ErrorKind::ToolError) == StoppedReason::Error);
}
