// `engine eval` and `engine batch --eval` as CI runs them: the shipped example's evaluation, the table, the scores in
// the results, and the exit code set by the threshold.
#include <catch2/catch.hpp>

#include <fstream>

#include "engine/core/json_parse.h"
#include "support/test_support.h"

using namespace engine;
using test::run_engine;
using test::shell_quote;

namespace {

std::vector<Value> scored(const std::filesystem::path& file) {
  std::vector<Value> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) out.push_back(parse_json(line));
  return out;
}

}  // namespace

TEST_CASE("engine eval scores the shipped batch's results: a table, the scores in each line, exit 0 above the threshold", "[e2e][eval]") {
  test::TempDir dir;
  auto results = dir.path() / "results.jsonl";
  REQUIRE(run_engine("batch workflows/batch_qa.yaml --data workflows/data/questions.jsonl --out " +
                     shell_quote(results.string())).exit_code == 0);
  auto r = run_engine("eval workflows/batch_qa.eval.yaml --results " + shell_quote(results.string()));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "evaluator          kind               mean  pass rate  threshold\n"
        "correct            exact             0.900      90.0%  80% ok\n"
        "mentions_expected  contains          0.900      90.0%  80% ok\n"
        "is_a_number        regex             0.900      90.0%  80% ok\n"
        "close_enough       numeric           0.900      90.0%  80% ok\n"
        "answer_shape       json_schema       1.000     100.0%  100% ok\n"
        "used_calculator    tool_trajectory   0.950      95.0%  80% ok\n"
        "judge              workflow          0.900      90.0%  80% ok\n"
        "20 lines scored\n"
        "failed, by line of the data file:\n"  // which rows to look at
        "  correct            15, 17\n"
        "  mentions_expected  15, 17\n"
        "  is_a_number        15, 17\n"
        "  close_enough       15, 17\n"
        "  used_calculator    15\n"
        "  judge              15, 17\n");
  auto lines = scored(results);
  REQUIRE(lines.size() == 20);
  CHECK(lines[0]["scores"]["judge"] == Value{{"score", 1.0}, {"pass", true}, {"reason", "the answer is the expected one"}});
  CHECK(lines[14]["scores"]["correct"]["pass"] == false);  // "Who wrote Hamlet?": not arithmetic

  auto strict = run_engine("eval workflows/batch_qa.eval.yaml --json --threshold 0.95 --results " +
                           shell_quote(results.string()));
  CHECK(strict.exit_code == 1);
  Value doc = Value::parse(strict.out);
  CHECK(doc["ok"] == false);
  CHECK(doc["evaluators"][0]["threshold"] == 0.95);
  CHECK(doc["evaluators"][0]["ok"] == false);
  CHECK(doc["evaluators"][4]["threshold"] == 1.0);  // its own threshold wins
  CHECK(doc["evaluators"][0]["failed_lines"] == Value::array({15, 17}));
  CHECK(doc["evaluators"][4]["failed_lines"] == Value::array());
}

TEST_CASE("engine batch --eval scores the results when the batch ends, and a bad evaluation file stops it before any run", "[e2e][eval]") {
  test::TempDir dir;
  auto results = dir.path() / "results.jsonl";
  auto r = run_engine("batch workflows/batch_qa.yaml --data workflows/data/questions.jsonl --out " +
                      shell_quote(results.string()) + " --eval workflows/batch_qa.eval.yaml --threshold 0.95 --json");
  CHECK(r.exit_code == 1);  // the runs are ok; evaluators are below 95%
  Value doc = Value::parse(r.out);
  CHECK(doc["ok"] == 20);
  CHECK(doc["eval"]["ok"] == false);
  CHECK(scored(results)[0].contains("scores"));

  auto bad = dir.write("bad.eval.yaml", "evaluators:\n  a: {kind: exakt}\n");
  auto refused = run_engine("batch workflows/batch_qa.yaml --data workflows/data/questions.jsonl --out " +
                            shell_quote((dir.path() / "other.jsonl").string()) + " --eval " + shell_quote(bad.string()));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("evaluators.a.kind must be one of") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path() / "other.jsonl"));
}
