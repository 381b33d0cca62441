// An evaluation over a results file: every line scored by every evaluator, the scores written into the lines, and
// each evaluator's pass rate against its threshold.
#include <catch2/catch.hpp>

#include "engine/app/batch_results.h"
#include "engine/app/evaluation.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lines.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::string results_of(const std::vector<std::pair<std::string, std::string>>& outputs_and_expected) {
  std::string text;
  for (size_t i = 0; i < outputs_and_expected.size(); ++i)
    text += to_json_text(Value{{"index", i}, {"status", "ok"}, {"output", outputs_and_expected[i].first},
                               {"data", {{"expected", outputs_and_expected[i].second}}}}) + "\n";
  return text;
}

std::vector<Value> scored_lines(const std::filesystem::path& file) {
  std::vector<Value> out;
  FileLines lines(file);
  for (std::string text; lines.next(text);) out.push_back(parse_json(text));
  return out;
}

const char* const kEvalFile =
    "threshold: 0.5\nevaluators:\n"
    "  correct: {kind: exact, expected: '{{ data.expected }}'}\n"
    "  strict: {kind: exact, expected: '{{ data.expected }}', threshold: 1.0}\n"
    "  number: {kind: regex, pattern: '^[0-9]+$'}\n";

}  // namespace

TEST_CASE("evaluation: scores go into the lines, and each evaluator's mean and pass rate are summed up", "[app][eval]") {
  test::TempDir dir;
  app::Evaluation evaluation(dir.write("e.yaml", kEvalFile));
  auto results = dir.write("r.jsonl", results_of({{"1", "1"}, {"2", "2"}, {"x", "3"}, {"4", "5"}}));
  Cancel cancel;
  app::EvaluationReport report = evaluation.run({.results = results}, cancel);
  CHECK(report.lines == 4);
  REQUIRE(report.evaluators.size() == 3);
  CHECK(report.evaluators[0].name == "correct");
  CHECK(report.evaluators[0].passed == 2);
  CHECK(report.evaluators[0].pass_rate() == 0.5);
  CHECK(report.evaluators[0].threshold == 0.5);
  CHECK(report.evaluators[0].ok());
  CHECK(!report.evaluators[1].ok());  // its own threshold, 1.0
  CHECK(report.evaluators[2].mean() == 0.75);
  CHECK(!report.ok());
  auto lines = scored_lines(results);  // scored in place
  REQUIRE(lines.size() == 4);
  CHECK(lines[2]["scores"]["correct"] == Value{{"score", 0.0}, {"pass", false}, {"reason", "expected '3', got 'x'"}});
  CHECK(lines[0]["scores"]["number"] == Value{{"score", 1.0}, {"pass", true}});
  CHECK(report.to_json()["evaluators"][1]["ok"] == false);

  // Scored again, the old scores are replaced; --threshold applies where an evaluator has none of its own.
  app::EvaluationReport lenient = evaluation.run({.results = results, .threshold = 0.25}, cancel);
  CHECK(lenient.evaluators[0].threshold == 0.25);
  CHECK(lenient.evaluators[1].threshold == 1.0);
  CHECK(scored_lines(results)[2]["scores"].size() == 3);
}

TEST_CASE("evaluation: --out leaves the results as they were, and a file that is not results is refused", "[app][eval]") {
  test::TempDir dir;
  app::Evaluation evaluation(dir.write("e.yaml", kEvalFile));
  std::string text = results_of({{"1", "1"}});
  auto results = dir.write("r.jsonl", text);
  Cancel cancel;
  evaluation.run({.results = results, .out = dir.path() / "scored.jsonl"}, cancel);
  CHECK(read_file(results) == text);
  CHECK(scored_lines(dir.path() / "scored.jsonl")[0].contains("scores"));
  auto bad = dir.write("bad.jsonl", text + "{\"index\": 1, \"sta");
  CHECK_THROWS_WITH(evaluation.run({.results = bad}, cancel),
                    bad.string() + ":2: not a batch's result line (cut short: run the batch again to finish it)");
  CHECK(read_file(bad) == text + "{\"index\": 1, \"sta");  // untouched
  CHECK(!std::filesystem::exists(dir.path() / "bad.jsonl.new"));
}

// Rewriting the results in place while a batch appends to them would lose the lines appended meanwhile.
TEST_CASE("evaluation: results a batch still holds are refused, and the file is left as it was", "[app][eval]") {
  test::TempDir dir;
  app::Evaluation evaluation(dir.write("e.yaml", kEvalFile));
  auto results = dir.path() / "r.jsonl";
  app::ResultsFile running(results, false);
  running.append(Value{{"index", 0}, {"status", "ok"}, {"output", "1"}, {"data", {{"expected", "1"}}}});
  Cancel cancel;
  std::string kind;
  for (auto out : {std::filesystem::path(), dir.path() / "scored.jsonl"}) {
    CHECK(test::error_of([&] { evaluation.run({.results = results, .out = out}, cancel); }, &kind) ==
          "an engine batch is still writing '" + results.string() + "'; score its results once it has ended");
    CHECK(kind == "batch.busy");
  }
  CHECK(scored_lines(results).size() == 1);
  CHECK(!std::filesystem::exists(dir.path() / "scored.jsonl"));
}

TEST_CASE("evaluation: a results line past 16 MiB is refused, not read whole", "[app][eval]") {
  test::TempDir dir;
  app::Evaluation evaluation(dir.write("e.yaml", kEvalFile));
  std::string text = results_of({{"1", "1"}}) + R"({"index":1,"status":"ok","output":")" +
                     std::string((size_t{16} << 20) + 10, 'x') + "\"}\n";
  auto results = dir.write("r.jsonl", text);
  Cancel cancel;
  CHECK(test::error_of([&] { evaluation.run({.results = results}, cancel); }) ==
        results.string() + ":2: not a batch's result line");
  CHECK(read_file(results, size_t{64} << 20) == text);
}

// The scored file is where a judge's words leave: the key its load read is masked there, whole, in the reason.
TEST_CASE("evaluation: the scored file masks the key a judge quotes in its reason", "[app][eval]") {
  const std::string key = "sk-judge-scored-0123456789abcdef";
  setenv("ENGINE_TEST_SCORED_KEY", key.c_str(), 1);
  test::TempDir dir;
  dir.write("judge.yaml", test::quoting_judge("ENGINE_TEST_SCORED_KEY"));
  app::Evaluation evaluation(
      dir.write("e.yaml", "evaluators:\n  judge: {kind: workflow, workflow: judge.yaml, inputs: {answer: '{{ output }}'}}\n"));
  unsetenv("ENGINE_TEST_SCORED_KEY");
  auto results = dir.write("r.jsonl", results_of({{"the key is " + key, ""}}));
  Cancel cancel;
  evaluation.run({.results = results}, cancel);
  auto lines = scored_lines(results);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["scores"]["judge"] == Value{{"score", 1.0}, {"pass", true}, {"reason", "it says the key is ***"}});
  CHECK(lines[0]["output"] == "the key is ***");  // the line's own output, quoting the key, is masked as it is rewritten
}
