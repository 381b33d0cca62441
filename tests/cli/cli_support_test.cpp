// What every command shares: errors become one message and a documented exit code, whatever was thrown.
#include <catch2/catch.hpp>

#include <new>
#include <stdexcept>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"

using namespace engine;

TEST_CASE("guarded: bad input exits 2, out of memory and internal failures exit 1, never an abort", "[cli]") {
  CHECK(cli::guarded([] { return cli::kOk; }) == 0);
  CHECK(cli::guarded([]() -> int { throw Error("spec.unknown_key", "unknown key"); }) == cli::kBadInput);
  CHECK(cli::guarded([]() -> int { throw std::bad_alloc(); }) == cli::kRunFailed);
  CHECK(cli::guarded([]() -> int { throw std::length_error("basic_string::_M_create"); }) == cli::kRunFailed);
}
