#pragma once
// The evaluators of an evaluation file, built once (templates, regexes, schemas compiled; a judge workflow loaded)
// and immutable, so lines are scored from several threads. Each scores one result line of a batch.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/value.h"
#include "engine/spec/eval_spec.h"

namespace engine::app {

struct Score {
  double score = 0;  // from 0 to 1
  bool pass = false;
  std::string reason;  // why it did not pass, or what the judge said

  Value to_json() const;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  const std::string& name() const { return name_; }
  const std::string& kind() const { return kind_; }
  double pass_score() const { return pass_score_; }
  const std::optional<double>& threshold() const { return threshold_; }

  // The line's score; a line whose run failed scores 0. Throws only when `cancel` stops it.
  Score score(const Value& line, const Cancel* cancel) const;

 protected:
  Evaluator(const spec::EvaluatorSpec& spec, double default_pass_score);
  // The score of a line whose run ended ok; throws Error for what it cannot read (a template error), which the
  // line's score then reports.
  virtual Score score_ok(const Value& line, const Cancel* cancel) const = 0;

 private:
  std::string name_;
  std::string kind_;
  double pass_score_;
  std::optional<double> threshold_;
};

// Throws a located Error for an evaluator that cannot be built (a template, a regex, a schema, a judge workflow).
// A judge workflow's load reads its secrets into `secrets`.
std::vector<std::unique_ptr<Evaluator>> build_evaluators(const spec::EvalSpec& spec,
                                                         const std::shared_ptr<SecretSet>& secrets);

}  // namespace engine::app
