// The problems a check collects: kept up to a limit and counted past it, and the entries left out for their own
// problem, which what names them must not report again.
#include <catch2/catch.hpp>

#include "engine/core/diagnostics.h"

using namespace engine;

TEST_CASE("diagnostics: problems past the limit are counted, not kept", "[core]") {
  Diagnostics found(2);
  CHECK(found.empty());
  found.note(Error(ErrorKind::SpecUnknownKey, "first"));
  found.note(Error(ErrorKind::SpecMissingKey, "second"));
  found.note(Error(ErrorKind::SpecWrongType, "third"));
  CHECK(found.count() == 3);
  REQUIRE(found.errors().size() == 2);
  CHECK(found.errors()[0].message() == "first");
  CHECK(found.errors()[1].message() == "second");
}

TEST_CASE("diagnostics: an entry left out is known by its kind and name, an unnamed one stands for any", "[core]") {
  Diagnostics found(20);
  found.left_out(Diagnostics::Entry::tool, "search");
  CHECK(found.was_left_out(Diagnostics::Entry::tool, "search"));
  CHECK_FALSE(found.was_left_out(Diagnostics::Entry::tool, "fetch"));
  CHECK_FALSE(found.was_left_out(Diagnostics::Entry::step, "search"));  // a step of that name is another entry
  found.left_out(Diagnostics::Entry::step, "");
  CHECK(found.was_left_out(Diagnostics::Entry::step, "anything"));
  CHECK_FALSE(found.was_left_out(Diagnostics::Entry::tool, "fetch"));
}

TEST_CASE("diagnostics: noted() throws on without diagnostics and notes with them", "[core]") {
  auto bad = [] { throw Error(ErrorKind::SpecBadValue, "bad value"); };
  CHECK_THROWS_AS(noted(nullptr, bad), Error);
  Diagnostics found(20);
  CHECK_FALSE(noted(&found, bad));
  CHECK(noted(&found, [] {}));
  REQUIRE(found.errors().size() == 1);
  CHECK(found.errors()[0].kind() == ErrorKind::SpecBadValue);
}
