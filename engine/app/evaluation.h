#pragma once
// `engine eval`: an evaluation file's evaluators over a batch's results, each line scored by each evaluator, the
// scores written into the lines, and a summary per evaluator (mean, pass rate) that CI gates on.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/app/evaluators.h"
#include "engine/core/cancel.h"
#include "engine/core/secret_set.h"
#include "engine/core/value.h"

namespace engine::app {

struct EvaluatorSummary {
  std::string name;
  std::string kind;
  size_t lines = 0;
  size_t passed = 0;
  double total = 0;                 // of the scores
  std::optional<double> threshold;  // the pass rate it needs, if any
  // Where the lines that failed came from: their line in the data file (a result's `line`; its index + 1 when it
  // has none), the first kMaxFailedListed of them, in the results' order.
  static constexpr size_t kMaxFailedListed = 100;
  std::vector<size_t> failed_lines;

  double mean() const { return lines ? total / static_cast<double>(lines) : 0; }
  double pass_rate() const { return lines ? static_cast<double>(passed) / static_cast<double>(lines) : 0; }
  bool ok() const { return !threshold || pass_rate() >= *threshold; }
};

struct EvaluationReport {
  size_t lines = 0;
  std::vector<EvaluatorSummary> evaluators;

  bool ok() const;  // every evaluator reaches its threshold
  // {lines, ok, evaluators: [{name, kind, lines, passed, mean, pass_rate, threshold, ok, failed_lines}]}
  Value to_json() const;
};

struct EvaluationOptions {
  std::filesystem::path results;
  std::filesystem::path out;  // where the scored lines go; empty: back into the results file
  size_t concurrency = 4;     // lines scored at once (a judge workflow calls a model)
  std::optional<double> threshold;  // --threshold: for the evaluators without a threshold of their own
};

class Evaluation {
 public:
  // Loads the evaluation file and builds its evaluators; throws a located Error. `secrets`: the front end's set (a
  // judge's load reads its keys into it, and the scored file masks it); null: a set of the evaluation's own.
  explicit Evaluation(const std::filesystem::path& eval_file, std::shared_ptr<SecretSet> secrets = nullptr);

  // Scores every line of the results file; throws Error "io.*" or "batch.bad_results", or as throw_stopped.
  EvaluationReport run(const EvaluationOptions& options, const Cancel& cancel) const;
  size_t size() const { return evaluators_.size(); }  // how many evaluators

 private:
  spec::EvalSpec spec_;
  std::shared_ptr<SecretSet> secrets_;
  std::vector<std::unique_ptr<Evaluator>> evaluators_;
};

}  // namespace engine::app
