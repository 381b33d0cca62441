#pragma once
// An evaluation file: the evaluators `engine eval` runs over a batch's results, as written, with the places of
// their keys for errors. docs/eval.md describes every key.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/source.h"
#include "engine/core/value.h"
#include "engine/spec/workflow_spec.h"

namespace engine::spec {

struct EvaluatorSpec {
  std::string name;
  SourceLoc at;  // its key
  Located<std::string> kind;  // exact, contains, regex, json_schema, numeric, tool_trajectory, workflow
  Located<std::string> actual;    // a template over the result line; "{{ output }}" when absent
  Located<std::string> expected;  // a template (exact, contains, numeric; tool_trajectory when not a list)
  std::vector<std::string> expected_tools;  // tool_trajectory's list, when written as one
  bool expected_is_list = false;
  bool ignore_case = false;
  Located<std::string> pattern;  // regex
  Value schema;                  // json_schema
  SourceLoc schema_at;
  double tolerance = 0;           // numeric: |actual - expected| <= tolerance + relative * |expected|
  double relative_tolerance = 0;
  Located<std::string> order;     // tool_trajectory: exact, in_order, any_order, subset
  Located<std::string> workflow;  // the judge's file, relative to the evaluation file
  std::filesystem::path workflow_file;
  std::vector<std::pair<std::string, Located<std::string>>> inputs;  // the judge's inputs: templates
  double scale = 1;               // workflow: the judge's scores run from 0 to this
  std::optional<double> pass_score;  // a line passes at this score or above (1, or 0.5 for a judge)
  std::optional<double> threshold;   // the pass rate this evaluator needs
};

struct EvalSpec {
  std::string display_path;
  std::filesystem::path dir;
  std::shared_ptr<const SourceText> source;
  std::vector<EvaluatorSpec> evaluators;
  std::optional<double> threshold;  // every evaluator's pass rate must reach it, unless its own says otherwise
};

const std::vector<std::string>& evaluator_kinds();
// The keys an evaluation file takes at its top and in an evaluator of `kind` (schema/eval.schema.json says the same).
const std::vector<std::string>& eval_file_keys();
std::vector<std::string> evaluator_keys(const std::string& kind);

// Reads and checks an evaluation file. Throws a located Error ("spec.*", "io.*").
EvalSpec load_eval(const std::filesystem::path& file);
EvalSpec parse_eval(std::string text, std::string display_path, std::filesystem::path dir);

}  // namespace engine::spec
