// Error kinds: each named once in the table and read back from its name, and the family its name begins with.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/value.h"

using namespace engine;

TEST_CASE("every error kind has a name of its own, read back as that kind", "[core]") {
  const std::vector<std::string>& names = error_kind_names();
  CHECK(names.size() == static_cast<size_t>(ErrorKind::ServeKeyReused) + 1);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    auto kind = static_cast<ErrorKind>(i);
    CHECK(name_of(kind) == names[i]);
    CHECK(error_kind_named(names[i]) == kind);
  }
  CHECK(name_of(ErrorKind::SpecUnknownKey) == "spec.unknown_key");
  CHECK(name_of(ErrorKind::Usage) == "usage");
  CHECK_FALSE(error_kind_named("spec.unknown"));
  CHECK_FALSE(error_kind_named(""));
}

TEST_CASE("an error kind's family is its name up to the dot", "[core]") {
  CHECK(family_of(ErrorKind::SpecUnknownKey) == "spec");
  CHECK(family_of(ErrorKind::RunTimeout) == "run");
  CHECK(family_of(ErrorKind::Usage) == "usage");
}

TEST_CASE("an error says its kind by name", "[core]") {
  Error e(ErrorKind::ToolTimeout, "tool 'slow' took longer than 5000 ms");
  CHECK(e.kind() == ErrorKind::ToolTimeout);
  CHECK(e.kind_name() == "tool.timeout");
  std::ostringstream out;
  out << e.kind();
  CHECK(out.str() == "tool.timeout");
}

TEST_CASE("an error kind put in JSON is its name", "[core]") {
  Value doc{{"kind", ErrorKind::LlmUnavailable}};
  CHECK(to_json_text(doc) == R"({"kind":"llm.unavailable"})");
  Value v = ErrorKind::Usage;
  CHECK(v == "usage");
}
