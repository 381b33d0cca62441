// engine eval EVAL.yaml --results results.jsonl: the evaluation file's evaluators over a batch's results; the scores
// go into the lines, a table per evaluator to stdout, and the exit code says whether every threshold was reached.
#include <iostream>
#include <optional>

#include "engine/app/batch.h"
#include "engine/app/evaluation.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/commands.h"
#include "engine/cli/eval_table.h"
#include "engine/cli/interrupt_watch.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"

namespace engine::cli {
namespace {

struct EvalOptions {
  std::string eval_file;
  std::string results;
  std::string out;
  std::optional<double> threshold;
  size_t concurrency = 4;
  bool json = false;
};

int evaluate(const EvalOptions& o) {
  Cancel cancel;
  InterruptWatch interrupts(cancel);
  app::Evaluation evaluation(o.eval_file, console_secrets());
  app::EvaluationReport report;
  try {
    report = evaluation.run({.results = o.results, .out = o.out, .concurrency = o.concurrency, .threshold = o.threshold},
                            cancel);
  } catch (const Error&) {
    if (!interrupts.signal()) throw;
    print_error("stopped: the results are left as they were");
    return interrupted_exit_code(interrupts.signal());
  }
  if (o.json) std::cout << to_json_text(report.to_json()) << std::endl;
  else print_evaluation(std::cout, report);
  return report.ok() ? kOk : kRunFailed;
}

}  // namespace

void add_eval_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "Score a batch's results with the evaluators of an evaluation file");
  cmd->add_option("eval_file", o->eval_file, "The evaluation file (YAML)")->required();
  cmd->add_option("--results", o->results, "The results of `engine batch`")->required();
  cmd->add_option("--out", o->out, "Write the scored lines here (default: back into the results file)");
  cmd->add_option("--threshold", o->threshold, "The pass rate each evaluator needs, from 0 to 1 (an evaluator's "
                  "own threshold wins); below it, exit 1")->check(finite_number(0, 1));
  cmd->add_option("-c,--concurrency", o->concurrency, "Lines scored at once, 1 to 16384 (default 4)")
      ->check(whole_number(1, limits::kBatchConcurrency));
  cmd->add_flag("--json", o->json, "Print {lines, ok, evaluators: [...]} as JSON instead of the table");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return evaluate(*o); }); });
}

}  // namespace engine::cli
