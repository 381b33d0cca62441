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
  CHECK(e["message"].get<std::string>() == "steps.a.template: unknown filter 'uper' (did you mean 'upper'?)");

  app::Validation missing = app::validate_workflow((dir.path() / "nowhere.yaml").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.to_json()["errors"][0]["kind"].get<std::string>() == "io.read_failed");
}

TEST_CASE("validation reports every problem of independent entries, not only the first, up to a limit", "[app]") {
  test::TempDir dir;
  auto three = dir.write("three.yaml",
                         "version: 1\ninputs:\n  input: {}\nllm:\n  provider: scripted\n  temprature: 0\n"
                         "  scripted:\n    replies: ['Final Answer: x']\n"
                         "tools:\n  - builtin: echo\n    on_eror: fail\n"
                         "agent:\n  max_iterations: lots\n  stop: [\"\\nObservation:\"]\n  prompt: |\n"
                         "    Question: {{ input | uper }}\n    {{ agent_scratchpad }}\n");
  app::Validation v = app::validate_workflow(three.string());
  REQUIRE(v.errors.size() == 4);
  Value errors = v.to_json()["errors"];
  CHECK(errors[0]["message"] == "unknown key 'temprature' in llm (did you mean 'temperature'?)");
  CHECK(errors[0]["line"] == 6);
  CHECK(errors[1]["message"] == "unknown key 'on_eror' in tools[0] (did you mean 'on_error'?)");
  CHECK(errors[1]["line"] == 11);
  CHECK(errors[2]["kind"] == "spec.wrong_type");
  CHECK(errors[2]["line"] == 13);
  CHECK(errors[3]["kind"] == "template.unknown_filter");
  CHECK(errors[3]["line"] == 16);  // in the block, as in the file
  CHECK(errors[3]["source_line"] == "    Question: {{ input | uper }}");
  CHECK(app::validate_workflow(three.string(), 2).errors.size() == 2);
}

TEST_CASE("validation does not report what taking an entry out causes, such as a required key then missing", "[app]") {
  test::TempDir dir;
  // Taking out the llm block's wrong provider leaves no llm at all: one problem, not two.
  auto w = dir.write("w.yaml", "llm:\n  provider: scriptd\nagent: {}\n");
  app::Validation v = app::validate_workflow(w.string());
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].message().find("scriptd") != std::string::npos);
  // Taking out a misindented list item's key leaves the file empty: still one problem.
  auto emptied = dir.write("e.yaml", "tools:\n  - lua: a.lua\n   limits: {}\n");
  app::Validation e = app::validate_workflow(emptied.string());
  REQUIRE(e.errors.size() == 1);
  CHECK(e.errors[0].kind() == "spec.yaml_syntax");
  // A cycle names every step in it; taking one of them out must not make the others' reads false errors.
  auto cycle = dir.write("c.yaml", "steps:\n  a: {kind: template, template: '{{ steps.b.output }}'}\n"
                                   "  b: {kind: template, template: '{{ steps.a.output }}'}\n");
  app::Validation c = app::validate_workflow(cycle.string());
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].kind() == "spec.cycle");
  // A step taken out for its own problem is no missing step for the steps that read it.
  auto read = dir.write("r.yaml", "steps:\n  a: {kind: template, template: '{{ x | nofilter }}'}\n"
                                  "  b: {kind: template, template: '{{ steps.a.output }}'}\n");
  app::Validation r = app::validate_workflow(read.string());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].kind() == "template.unknown_filter");
}
