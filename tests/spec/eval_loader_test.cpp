// Evaluation files: what they may say, and every mistake in one named at its line with the key's path.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/spec/eval_spec.h"

using namespace engine;

namespace {

// "file:line:col: message", the line and the caret, as Error::formatted() shows them.
std::string located(const std::string& where, const std::string& message, const std::string& line, int col) {
  return where + ": " + message + "\n  " + line + "\n  " + std::string(col - 1, ' ') + "^";
}

std::string eval_error(const std::string& yaml) {
  try {
    spec::parse_eval(yaml, "e.yaml", ".");
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

}  // namespace

TEST_CASE("an evaluation file names its evaluators in order, with their keys and defaults", "[spec][eval]") {
  auto e = spec::parse_eval(
      "version: 1\nthreshold: 0.8\nevaluators:\n"
      "  correct: {kind: exact, expected: '{{ data.expected }}', ignore_case: true}\n"
      "  close: {kind: numeric, expected: '{{ data.n }}', tolerance: 0.5, relative_tolerance: 0.01}\n"
      "  tools: {kind: tool_trajectory, expected: [search, calculator], order: in_order}\n"
      "  judge: {kind: workflow, workflow: judge.yaml, inputs: {answer: '{{ output }}'}, scale: 10, pass_score: 0.7}\n",
      "e.yaml", "evals");
  CHECK(e.threshold == 0.8);
  REQUIRE(e.evaluators.size() == 4);
  CHECK(e.evaluators[0].name == "correct");
  CHECK(e.evaluators[0].actual.value == "{{ output }}");
  CHECK(e.evaluators[0].ignore_case);
  CHECK(e.evaluators[1].tolerance == 0.5);
  CHECK(e.evaluators[1].relative_tolerance == 0.01);
  CHECK(e.evaluators[2].expected_tools == std::vector<std::string>{"search", "calculator"});
  CHECK(e.evaluators[2].order.value == "in_order");
  CHECK(e.evaluators[3].workflow_file == std::filesystem::path("evals/judge.yaml"));
  CHECK(e.evaluators[3].inputs.size() == 1);
  CHECK(e.evaluators[3].scale == 10);
  CHECK(e.evaluators[3].pass_score == 0.7);
  CHECK(!e.evaluators[3].threshold);
}

TEST_CASE("an evaluation file's mistakes are named at their line", "[spec][eval]") {
  CHECK(eval_error("evaluators:\n  a: {kind: exakt, expected: x}\n") ==
        located("e.yaml:2:13",
                "evaluators.a.kind must be one of exact, contains, regex, json_schema, numeric, tool_trajectory, "
                "workflow, got 'exakt' (did you mean 'exact'?)",
                "  a: {kind: exakt, expected: x}", 13));
  CHECK(eval_error("evaluators:\n  a:\n    kind: exact\n    pattern: x\n    expected: y\n") ==
        located("e.yaml:4:5", "unknown key 'pattern' in evaluators.a", "    pattern: x", 5));
  CHECK(eval_error("evaluators:\n  a: {kind: regex}\n") ==
        located("e.yaml:2:6", "missing required key 'pattern' in evaluators.a", "  a: {kind: regex}", 6));
  CHECK(eval_error("threshold: 80\nevaluators:\n  a: {kind: regex, pattern: x}\n") ==
        located("e.yaml:1:12", "threshold is a fraction from 0 to 1, got 80", "threshold: 80", 12));
  CHECK(eval_error("evaluators: {}\n") ==
        located("e.yaml:1:13", "evaluators must name at least one evaluator", "evaluators: {}", 13));
  CHECK(eval_error("evaluators:\n  a: {kind: tool_trajectory, expected: [x], order: sorted}\n") ==
        located("e.yaml:2:52", "evaluators.a.order must be one of exact, in_order, any_order, subset, got 'sorted'",
                "  a: {kind: tool_trajectory, expected: [x], order: sorted}", 52));
  CHECK(eval_error("evaluators:\n  a: {kind: regex, pattern: x}\n  a: {kind: regex, pattern: y}\n") ==
        located("e.yaml:3:3", "duplicate key 'a' in evaluators", "  a: {kind: regex, pattern: y}", 3));
  CHECK(eval_error("evaluators: [x]\n").find("evaluators must be a mapping of names to evaluators") != std::string::npos);
  CHECK(eval_error("evaluators:\n  a: {kind: regex, pattern: [x\n").find("invalid YAML") != std::string::npos);
}
