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
  CHECK(cli::guarded([]() -> int { throw Error(ErrorKind::SpecUnknownKey, "unknown key"); }) == cli::kBadInput);
  CHECK(cli::guarded([]() -> int { throw std::bad_alloc(); }) == cli::kRunFailed);
  CHECK(cli::guarded([]() -> int { throw std::length_error("basic_string::_M_create"); }) == cli::kRunFailed);
}

TEST_CASE("an error line names its kind, as docs/errors.md lists it, and is red only when asked", "[cli]") {
  CHECK(cli::error_line("template.undefined", "t.j2:1:4: undefined variable 'x'", false) ==
        "engine: error[template.undefined]: t.j2:1:4: undefined variable 'x'");
  CHECK(cli::error_line("", "stopped before every test had run", false) ==
        "engine: error: stopped before every test had run");
  CHECK(cli::error_line("usage", "unknown command 'runn'", true) ==
        "engine: \033[1;31merror[usage]\033[0m: unknown command 'runn'");
}
