#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/text.h"

using namespace engine;

TEST_CASE("did you mean picks a close candidate only", "[core]") {
  std::vector<std::string> keys = {"stop", "prompt", "parser", "max_iterations"};
  CHECK(did_you_mean("stopp", keys) == " (did you mean 'stop'?)");
  CHECK(did_you_mean("max_iteration", keys) == " (did you mean 'max_iterations'?)");
  CHECK(did_you_mean("zzzzzz", keys).empty());
  CHECK(did_you_mean("ecoh", {"echo", "current_time"}) == " (did you mean 'echo'?)");
}

TEST_CASE("invalid UTF-8 and NUL bytes are found", "[core]") {
  CHECK(find_invalid_utf8("plain ascii") == std::string::npos);
  CHECK(find_invalid_utf8("日本語") == std::string::npos);
  CHECK(find_invalid_utf8(std::string("ab\0c", 4)) == 2);
  CHECK(find_invalid_utf8("ab\xff") == 2);
  CHECK(find_invalid_utf8("\xe6\x97") == 0);  // truncated sequence
}

TEST_CASE("an error formats as file:line:col with a caret", "[core]") {
  SourceText src("w.yaml", "a: 1\n  stopp: 2\n");
  Error e = located_error("spec.unknown_key", "unknown key 'stopp'", src, 2, 3);
  CHECK(e.formatted() == "w.yaml:2:3: unknown key 'stopp'\n    stopp: 2\n    ^");
  CHECK(std::string(e.what()) == "w.yaml:2:3: unknown key 'stopp'");
}

TEST_CASE("excerpts are short, escaped and never cut a character", "[core]") {
  CHECK(quote_excerpt("a\nb") == "'a\\nb'");
  CHECK(quote_excerpt("日本語", 2) == "'日本...'");
}
