// schema/workflow.schema.json against the loader: the same keys in every mapping, every example following it, and
// the schema module finding what breaks it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/parse/schema_patterns.h"
#include "engine/schema/schema.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/format_schema.h"
#include "engine/spec/workflow_spec.h"
#include "engine/spec/yaml_value.h"
#include "support/test_support.h"

using namespace engine;
namespace fs = std::filesystem;

namespace {

Value format_schema_json() { return parse_json(read_file(test::source_path("schema/workflow.schema.json"))); }

schema::Schema compiled_format_schema() {
  return schema::Schema::compile(format_schema_json(), {parse::schema_patterns()});
}

std::set<std::string> property_names(const Value& mapping) {
  std::set<std::string> out;
  if (mapping.contains("properties"))
    for (const auto& [key, _] : mapping["properties"].items()) out.insert(key);
  return out;
}

// "a, b" of what `a` has and `b` lacks.
std::string missing_from(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string out;
  for (const auto& k : a)
    if (!b.count(k)) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// The example workflows: every YAML file under workflows/ that is not a test file or an evaluation file.
std::vector<fs::path> example_workflows() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(test::source_path("workflows"))) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || name.find(".test.") != std::string::npos ||
        name.find(".eval.") != std::string::npos)
      continue;
    out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the format's schema is a draft 7 schema the schema module takes whole", "[spec][schema]") {
  Value json = format_schema_json();
  CHECK(schema::check_schema(json, {parse::schema_patterns()}).empty());
  CHECK(json["$schema"] == "http://json-schema.org/draft-07/schema#");
  // The engine prints the very file.
  CHECK(std::string(spec::workflow_format_schema()) == read_file(test::source_path("schema/workflow.schema.json")));
}

TEST_CASE("the schema and the loader accept the same keys in every mapping", "[spec][schema]") {
  Value json = format_schema_json();
  std::set<std::string> described;
  for (const auto& table : spec::format_key_tables()) {
    std::string name(table.schema_definition);
    INFO("the mapping " << (name.empty() ? "at the schema's root (the workflow)" : "#/definitions/" + name));
    REQUIRE((name.empty() || json["definitions"].contains(name)));
    const Value& mapping = name.empty() ? json : json["definitions"][name];
    std::set<std::string> in_schema = property_names(mapping);
    std::set<std::string> in_loader(table.keys->begin(), table.keys->end());
    CHECK(missing_from(in_loader, in_schema) == "");  // keys the loader takes that the schema does not describe
    CHECK(missing_from(in_schema, in_loader) == "");  // keys the schema offers that the loader refuses
    // An unknown key is an error to the loader; editors must flag it too.
    CHECK(mapping["additionalProperties"] == false);
    described.insert(name);
  }
  // A mapping the schema describes and the loader has no table for would drift unseen.
  for (const auto& [name, definition] : json["definitions"].items()) {
    INFO("#/definitions/" << name);
    if (definition.contains("properties")) CHECK(described.count(name) == 1);
  }
}

TEST_CASE("every example workflow names the schema and follows it", "[spec][schema]") {
  auto format = compiled_format_schema();
  auto examples = example_workflows();
  REQUIRE(examples.size() >= 15);
  for (const auto& file : examples) {
    INFO(file.string());
    std::string text = read_file(file);
    std::string modeline = "# yaml-language-server: $schema=";
    size_t at = text.find(modeline);
    REQUIRE(at != std::string::npos);
    std::string named = text.substr(at + modeline.size(), text.find('\n', at) - at - modeline.size());
    CHECK(fs::weakly_canonical(file.parent_path() / named) ==
          fs::weakly_canonical(test::source_path("schema/workflow.schema.json")));
    CHECK(schema::describe(format.validate(spec::read_yaml_value(file))) == "");
  }
}

TEST_CASE("a workflow that breaks the schema is reported at each place", "[spec][schema]") {
  test::TempDir dir;
  auto file = dir.write("w.yaml", R"(version: 1
inputs:
  question: 42
llm: {provider: openaii, max_retries: 50}
tools:
  - {lua: t.lua, on_error: ignore}
agent:
  kind: react
  max_iterations: 0
  parser: {kind: json_blob, action: "x"}
  memory: {k: 2}
steps:
  s: {kind: llm, promt: "hi"}
)");
  auto violations = compiled_format_schema().validate(spec::read_yaml_value(file));
  std::set<std::string> pointers;
  for (const auto& v : violations) pointers.insert(v.pointer);
  for (const char* expected : {"/inputs/question", "/llm/provider", "/llm/max_retries", "/tools/0/on_error",
                               "/agent/max_iterations", "/agent/parser/action", "/agent/memory/kind", "/steps/s/promt"}) {
    INFO(schema::describe(violations));
    CHECK(pointers.count(expected) == 1);
  }
  CHECK(schema::describe(violations).find("Failed") == std::string::npos);  // valijson's words are translated
}

TEST_CASE("a workflow may name its schema with a $schema key", "[spec][schema]") {
  auto w = spec::parse_workflow(
      "$schema: ../schema/workflow.schema.json\ninputs: {input: {}}\nllm: {provider: scripted, scripted: {replies: "
      "[\"Final Answer: 1\"]}}\nagent: {}\n",
      "w.yaml", ".");
  CHECK(w.inputs.size() == 1);
}
