// schema/workflow.schema.json against the loader: the same keys in every mapping, every example following it, and
// the schema module finding what breaks it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/parse/schema_patterns.h"
#include "engine/schema/schema.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/eval_spec.h"
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

// A test or evaluation file's schema, with the workflow schema's definitions it refers to
// (workflow.schema.json#/definitions/...) brought in, as an editor resolves them from the file beside it.
schema::Schema compiled_file_schema(const std::string& file) {
  Value json = parse_json(read_file(test::source_path("schema/" + file)));
  Value& definitions = json["definitions"];
  if (definitions.is_null()) definitions = Value::object();
  const Value workflow = format_schema_json();
  for (const auto& [name, definition] : workflow["definitions"].items())
    if (!definitions.contains(name)) definitions[name] = definition;
  std::string text = json.dump();
  for (size_t at; (at = text.find("workflow.schema.json#")) != std::string::npos;) text.erase(at, std::strlen("workflow.schema.json"));
  return schema::Schema::compile(parse_json(text), {parse::schema_patterns()});
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

// An editor must agree with the loader: ${VAR} where the loader expands it, and each step kind's own keys.
TEST_CASE("the schema takes ${VAR} where the loader expands it and holds each step kind to its own keys",
          "[spec][schema]") {
  test::TempDir dir;
  auto format = compiled_format_schema();
  auto violations_of = [&](const std::string& yaml) {
    std::set<std::string> pointers;
    for (const auto& v : format.validate(spec::read_yaml_value(dir.write("w.yaml", yaml)))) pointers.insert(v.pointer);
    return pointers;
  };
  // What an editor reads: the text as written, before the engine expands it.
  Value with_variables = parse_json(R"({"llm": {"provider": "${PROVIDER:-scripted}", "max_retries": "${N:-3}",
                                        "timeout": "${T}"}, "agent": {"max_iterations": "${ITER:-5}"}})");
  CHECK(schema::describe(format.validate(with_variables)) == "");
  CHECK(violations_of("llm: {max_retries: three}\n").count("/llm/max_retries") == 1);
  auto loop = violations_of("steps:\n  again:\n    kind: loop\n    until: 'true'\n    steps: {a: {kind: template, template: x}}\n");
  CHECK(loop.count("/steps/again") == 1);  // no max_iterations
  auto crossed = violations_of("steps:\n  t: {kind: template, template: x, prompt: y}\n  l: {kind: llm}\n");
  CHECK(crossed.count("/steps/t/prompt") == 1);  // another kind's key
  CHECK(crossed.count("/steps/l") == 1);         // an llm step without its prompt
  CHECK(violations_of("steps:\n  t: {kind: template, template: x}\n").empty());
}

TEST_CASE("test files and evaluation files have schemas of their own, with the loaders' keys", "[spec][schema]") {
  Value test_json = parse_json(read_file(test::source_path("schema/test.schema.json")));
  Value eval_json = parse_json(read_file(test::source_path("schema/eval.schema.json")));
  CHECK(std::string(spec::test_file_schema()) == read_file(test::source_path("schema/test.schema.json")));
  CHECK(std::string(spec::eval_file_schema()) == read_file(test::source_path("schema/eval.schema.json")));
  std::set<std::string> test_keys(spec::keys::kTestFile.begin(), spec::keys::kTestFile.end());
  CHECK(property_names(test_json) == test_keys);
  std::set<std::string> eval_keys(spec::eval_file_keys().begin(), spec::eval_file_keys().end());
  CHECK(property_names(eval_json) == eval_keys);
  // An evaluator takes the keys of its kind, and the schema forbids the others' (as the loader does).
  const Value& evaluator = eval_json["definitions"]["evaluator"];
  std::set<std::string> every;
  for (const auto& kind : spec::evaluator_kinds()) {
    INFO("kind: " << kind);
    auto keys = spec::evaluator_keys(kind);
    every.insert(keys.begin(), keys.end());
    const Value* rule = nullptr;
    for (const auto& r : evaluator["allOf"])
      if (r["if"]["properties"]["kind"]["const"] == kind) rule = &r;
    REQUIRE(rule);
    std::set<std::string> allowed = property_names(evaluator);
    for (const auto& [key, _] : (*rule)["then"]["properties"].items()) allowed.erase(key);
    CHECK(allowed == std::set<std::string>(keys.begin(), keys.end()));
  }
  CHECK(property_names(evaluator) == every);

  // Every example test and evaluation file names its schema and follows it.
  auto tests = compiled_file_schema("test.schema.json");
  auto evals = compiled_file_schema("eval.schema.json");
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(test::source_path("workflows"))) {
    std::string name = entry.path().filename().string();
    bool is_test = name.find(".test.yaml") != std::string::npos, is_eval = name.find(".eval.yaml") != std::string::npos;
    if (!is_test && !is_eval) continue;
    INFO(entry.path().string());
    std::string text = read_file(entry.path());
    CHECK(text.rfind(std::string("# yaml-language-server: $schema=../schema/") + (is_test ? "test" : "eval") +
                         ".schema.json\n", 0) == 0);
    CHECK(schema::describe((is_test ? tests : evals).validate(spec::read_yaml_value(entry.path()))) == "");
    ++checked;
  }
  CHECK(checked >= 2);

  // And the schemas find what the loaders refuse.
  test::TempDir dir;
  auto pointers_of = [&](const schema::Schema& s, const std::string& yaml) {
    std::set<std::string> out;
    for (const auto& v : s.validate(spec::read_yaml_value(dir.write("f.yaml", yaml)))) out.insert(v.pointer);
    return out;
  };
  auto bad_test = pointers_of(tests, "tests:\n  t:\n    expect: {outptu: x}\n  u: {inputs: {}}\nworkflw: w.yaml\n");
  CHECK(bad_test.count("/tests/t/expect/outptu") == 1);
  CHECK(bad_test.count("/tests/u/expect") == 1);  // required, and missing
  CHECK(bad_test.count("/workflw") == 1);
  auto bad_eval = pointers_of(evals, "threshold: 2\nevaluators:\n  a: {kind: regex}\n  b: {kind: exact, expected: x, "
                                     "pattern: y}\n  c: {kind: nope}\n");
  CHECK(bad_eval.count("/threshold") == 1);
  CHECK(bad_eval.count("/evaluators/a") == 1);            // regex without its pattern
  CHECK(bad_eval.count("/evaluators/b/pattern") == 1);    // another kind's key
  CHECK(bad_eval.count("/evaluators/c/kind") == 1);
}
