// Validation as a result, not an exception: a workflow that builds says what it declares, one that does not gives
// its first problem with its place, as JSON for editors and CI.
#include <catch2/catch.hpp>

#include "engine/app/validation.h"
#include "support/test_support.h"

using namespace engine;

TEST_CASE("validation: a file that builds, one with a located problem, one that is not there", "[app]") {
  test::TempDir dir;
  auto good = dir.write("good.yaml", "steps:\n  a: {kind: template, template: hi}\n");
  app::Validation ok = app::validate_workflow(good.string());
  CHECK(ok.ok());
  CHECK(ok.to_json() == Value{{"file", good.string()}, {"ok", true}, {"tools", 0}, {"inputs", 0}});

  auto bad = dir.write("bad.yaml", "steps:\n  a:\n    kind: template\n    template: |\n      {{ x | uper }}\n");
  app::Validation v = app::validate_workflow(bad.string());
  REQUIRE_FALSE(v.ok());
  Value e = v.to_json()["errors"][0];
  CHECK(e["kind"] == "template.unknown_filter");
  CHECK(e["line"] == 5);  // the template's line in the YAML file
  CHECK(e["column"] == 12);
  CHECK(e["message"].get<std::string>().rfind("steps.a.template: unknown filter 'uper'", 0) == 0);

  app::Validation missing = app::validate_workflow((dir.path() / "nowhere.yaml").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.to_json()["errors"][0]["kind"].get<std::string>().rfind("io.", 0) == 0);
}
