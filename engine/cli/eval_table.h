#pragma once
// The table `engine eval` and `engine batch --eval` print: each evaluator's mean score, pass rate and threshold.
#include <ostream>

#include "engine/app/evaluation.h"

namespace engine::cli {

void print_evaluation(std::ostream& out, const app::EvaluationReport& report);

}  // namespace engine::cli
