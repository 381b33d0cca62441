// What a step does: each kind's name read back as the kind.
#include <catch2/catch.hpp>

#include "engine/core/step_kind.h"

using namespace engine;

TEST_CASE("every step kind is named once and read back from its name", "[core]") {
  CHECK(step_kind_names() == std::vector<std::string>{"template", "llm", "agent", "tool", "lua", "loop", "workflow"});
  for (const std::string& name : step_kind_names()) {
    auto kind = step_kind_named(name);
    REQUIRE(kind);
    CHECK(name_of(*kind) == name);
  }
  CHECK_FALSE(step_kind_named("templat"));
  // Every value has its own name (a value the table lacked would be named as the first).
  for (int k = 0; k <= static_cast<int>(StepKind::Workflow); ++k)
    CHECK(step_kind_named(name_of(static_cast<StepKind>(k))) == static_cast<StepKind>(k));
}
