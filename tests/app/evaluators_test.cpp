// Each evaluator kind on result lines: what passes, what fails and the reason it gives, a failed run scoring 0, and
// an LLM judge (a workflow) giving a score and a reason.
#include <catch2/catch.hpp>

#include "engine/app/evaluators.h"
#include "engine/core/error.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// The one evaluator an evaluation file of one evaluator (written as YAML flow) builds.
std::unique_ptr<app::Evaluator> evaluator_of(const std::string& flow, const std::filesystem::path& dir = ".") {
  auto spec = spec::parse_eval("evaluators:\n  e: " + flow + "\n", "e.yaml", dir);
  auto built = app::build_evaluators(spec, std::make_shared<SecretSet>());
  REQUIRE(built.size() == 1);
  return std::move(built[0]);
}

Value ok_line(Value output, Value data = Value::object()) {
  return Value{{"index", 0}, {"status", "ok"}, {"inputs", {{"question", "q"}}}, {"data", std::move(data)},
               {"output", std::move(output)}, {"intermediate_steps", Value::array()}};
}

Value with_tools(Value line, const std::vector<std::string>& tools) {
  for (const auto& t : tools)
    line["intermediate_steps"].push_back({{"action", {{"tool", t}, {"tool_input", "x"}, {"log", ""}}}, {"observation", "y"}});
  return line;
}

}  // namespace

TEST_CASE("exact and contains: templates over the line, trimmed, optionally without case", "[app][eval]") {
  auto exact = evaluator_of("{kind: exact, expected: '{{ data.expected }}'}");
  CHECK(exact->score(ok_line(" 87\n", {{"expected", "87"}}), nullptr).pass);
  app::Score miss = exact->score(ok_line("86", {{"expected", "87"}}), nullptr);
  CHECK(!miss.pass);
  CHECK(miss.score == 0);
  CHECK(miss.reason == "expected '87', got '86'");
  CHECK(!exact->score(ok_line("Paris", {{"expected", "paris"}}), nullptr).pass);
  auto no_case = evaluator_of("{kind: exact, expected: paris, ignore_case: true}");
  CHECK(no_case->score(ok_line("Paris"), nullptr).pass);
  auto contains = evaluator_of("{kind: contains, expected: '{{ data.expected }}'}");
  CHECK(contains->score(ok_line("The answer is 87.", {{"expected", "87"}}), nullptr).pass);
  CHECK(contains->score(ok_line("no", {{"expected", "87"}}), nullptr).reason == "'no' does not contain '87'");
  // A line without the key the template reads: the score says so, and the line fails.
  app::Score undefined = exact->score(ok_line("87"), nullptr);
  CHECK(!undefined.pass);
  CHECK(undefined.reason.find("expected") != std::string::npos);
}

TEST_CASE("regex: a search in the actual text", "[app][eval]") {
  auto regex = evaluator_of(R"({kind: regex, pattern: '^\d+$'})");
  CHECK(regex->score(ok_line("87"), nullptr).pass);
  CHECK(regex->score(ok_line("87 apples"), nullptr).reason == "'87 apples' does not match /^\\d+$/");
  CHECK_THROWS_WITH(evaluator_of("{kind: regex, pattern: '(unclosed'}"),
                    Catch::StartsWith("e.yaml:2:29: evaluators.e.pattern: invalid regex: "));
}

TEST_CASE("numeric: the first number of each side, within an absolute and a relative tolerance", "[app][eval]") {
  auto numeric = evaluator_of("{kind: numeric, expected: '{{ data.n }}', tolerance: 0.5}");
  CHECK(numeric->score(ok_line("The total is 87.4 dollars", {{"n", 87}}), nullptr).pass);
  CHECK(numeric->score(ok_line("88", {{"n", "87"}}), nullptr).reason == "got 88, expected 87 within 0.5");
  CHECK(numeric->score(ok_line("none", {{"n", 87}}), nullptr).reason == "'none' holds no number");
  CHECK(numeric->score(ok_line("1", {{"n", "x"}}), nullptr).reason == "the expected value 'x' holds no number");
  auto relative = evaluator_of("{kind: numeric, expected: '1000', relative_tolerance: 0.01}");
  CHECK(relative->score(ok_line("-1009"), nullptr).reason == "got -1009, expected 1000 within 10");
  CHECK(relative->score(ok_line("1009.9"), nullptr).pass);
}

// strtod read "1e400" as infinity, and the digits after its 'e' were then taken for the number: 400.
TEST_CASE("numeric: a number too large for a double is out of range, never the digits after its exponent", "[app][eval]") {
  auto numeric = evaluator_of("{kind: numeric, expected: '{{ data.n }}'}");
  CHECK(numeric->score(ok_line("1e400", {{"n", 400}}), nullptr).reason == "got '1e400', a number out of range");
  CHECK(!numeric->score(ok_line("1e400", {{"n", 400}}), nullptr).pass);
  CHECK(numeric->score(ok_line("400", {{"n", "-2e999 units"}}), nullptr).reason ==
        "the expected value '-2e999' is out of range");
  CHECK(numeric->score(ok_line("0x10", {{"n", 16}}), nullptr).reason == "got 0, expected 16");  // decimal only
  CHECK(numeric->score(ok_line("1e308", {{"n", "1e308"}}), nullptr).pass);
}

TEST_CASE("json_schema: $refs that branch exponentially fail the line within the budget, never hang", "[app][eval]") {
  std::string defs;
  for (int i = 0; i < 40; ++i)
    defs += "d" + std::to_string(i) + ": {allOf: [{$ref: '#/definitions/d" + std::to_string(i + 1) +
            "'}, {$ref: '#/definitions/d" + std::to_string(i + 1) + "'}]}, ";
  auto e = evaluator_of("{kind: json_schema, schema: {definitions: {" + defs + "d40: {type: integer}}, $ref: '#/definitions/d0'}}");
  app::Score s = e->score(ok_line("7"), nullptr);
  CHECK(!s.pass);
  CHECK(s.reason == "at the top: could not be checked: the schema takes more than 1000064 steps for this value (its "
                    "$refs branch too much)");
}

TEST_CASE("json_schema: JSON output, or text holding JSON (fenced too), against a schema", "[app][eval]") {
  auto schema = evaluator_of("{kind: json_schema, schema: {type: object, required: [name], properties: {age: {type: integer}}}}");
  CHECK(schema->score(ok_line(Value{{"name", "Ada"}, {"age", 36}}), nullptr).pass);
  CHECK(schema->score(ok_line("```json\n{\"name\": \"Ada\"}\n```"), nullptr).pass);
  CHECK(schema->score(ok_line(Value{{"age", "old"}}), nullptr).reason ==
        "at /age: has a type the schema does not allow (a string); at /name: is required");
  CHECK(schema->score(ok_line("not json"), nullptr).reason == "not JSON: 'not json'");
}

TEST_CASE("tool_trajectory: the tools called, in order, against a list, in four ways", "[app][eval]") {
  Value line = with_tools(ok_line("x"), {"search", "calculator", "search"});
  auto exact = evaluator_of("{kind: tool_trajectory, expected: [search, calculator, search]}");
  CHECK(exact->score(line, nullptr).pass);
  CHECK(evaluator_of("{kind: tool_trajectory, expected: [search, calculator]}")->score(line, nullptr).reason ==
        "called [search, calculator, search], expected [search, calculator]");
  CHECK(evaluator_of("{kind: tool_trajectory, expected: [search, search], order: in_order}")->score(line, nullptr).pass);
  CHECK(!evaluator_of("{kind: tool_trajectory, expected: [calculator, calculator], order: in_order}")->score(line, nullptr).pass);
  CHECK(evaluator_of("{kind: tool_trajectory, expected: [search, search, calculator], order: any_order}")->score(line, nullptr).pass);
  CHECK(evaluator_of("{kind: tool_trajectory, expected: [calculator], order: subset}")->score(line, nullptr).pass);
  CHECK(!evaluator_of("{kind: tool_trajectory, expected: [weather], order: subset}")->score(line, nullptr).pass);
  // The expected list from the data: a JSON list, or names separated by commas.
  auto from_data = evaluator_of("{kind: tool_trajectory, expected: '{{ data.tools }}'}");
  line["data"]["tools"] = Value::array({"search", "calculator", "search"});
  CHECK(from_data->score(line, nullptr).pass);
  line["data"]["tools"] = "search, calculator, search";
  CHECK(from_data->score(line, nullptr).pass);
}

TEST_CASE("a line whose run failed scores 0 with every evaluator, and says why", "[app][eval]") {
  auto regex = evaluator_of("{kind: regex, pattern: '.*'}");
  Value failed{{"index", 3}, {"status", "failed"}, {"error", {{"kind", "llm.unavailable"}, {"message", "no answer"}}}};
  app::Score s = regex->score(failed, nullptr);
  CHECK(s.score == 0);
  CHECK(!s.pass);
  CHECK(s.reason == "the run failed: no answer");
}

TEST_CASE("workflow: another workflow judges the line, its {score, reason} scaled, passing at 0.5 by default", "[app][eval]") {
  test::TempDir dir;
  dir.write("judge.yaml",
            "inputs:\n  answer: a\nllm:\n  provider: scripted\n  scripted:\n    rules:\n"
            "      - {match: 'Grade: good', reply: '{\"score\": 8, \"reason\": \"clear\"}'}\n"
            "      - {match: 'Grade: meh', reply: 'I would say 4 out of 10'}\n"
            "      - {match: 'Grade: ', reply: 'no idea'}\n"
            "steps:\n  grade: {kind: llm, prompt: 'Grade: {{ answer }}'}\n");
  auto judge = evaluator_of("{kind: workflow, workflow: judge.yaml, scale: 10, inputs: {answer: '{{ output }}'}}", dir.path());
  app::Score good = judge->score(ok_line("good"), nullptr);
  CHECK(good.score == Approx(0.8));
  CHECK(good.pass);
  CHECK(good.reason == "clear");
  app::Score meh = judge->score(ok_line("meh"), nullptr);
  CHECK(meh.score == Approx(0.4));
  CHECK(!meh.pass);
  CHECK(meh.reason == "I would say 4 out of 10");
  CHECK(judge->score(ok_line("other"), nullptr).reason == "the judge gave no score: 'no idea'");
  CHECK_THROWS_WITH(evaluator_of("{kind: workflow, workflow: missing.yaml}", dir.path()),
                    Catch::Contains("evaluators.e.workflow: "));
}

// The reason is the judge's words as it wrote them; the scored file, where they leave, masks the key its load read
// (tests/app/evaluation_test.cpp).
TEST_CASE("workflow: a judge's load reads its key into the evaluation's secrets", "[app][eval]") {
  const std::string key = "sk-judge-secret-0123456789abcdef";
  setenv("ENGINE_TEST_JUDGE_KEY", key.c_str(), 1);
  test::TempDir dir;
  dir.write("judge.yaml", test::quoting_judge("ENGINE_TEST_JUDGE_KEY"));
  auto spec = spec::parse_eval("evaluators:\n  e: {kind: workflow, workflow: judge.yaml, inputs: {answer: '{{ output }}'}}\n",
                               "e.yaml", dir.path());
  auto secrets = std::make_shared<SecretSet>();
  auto built = app::build_evaluators(spec, secrets);
  unsetenv("ENGINE_TEST_JUDGE_KEY");
  REQUIRE(built.size() == 1);
  app::Score s = built[0]->score(ok_line("the key is " + key), nullptr);
  CHECK(s.pass);
  CHECK(s.reason == "it says the key is " + key);
  CHECK(secrets->mask(s.reason) == "it says the key is ***");
}
