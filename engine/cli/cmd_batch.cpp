// engine batch WORKFLOW --data FILE --out results.jsonl: the workflow over every row of a data file, N at once, each
// result written as its run ends; run again with the same --out, it goes on where it stopped.
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "engine/app/batch.h"
#include "engine/app/batch_merge.h"
#include "engine/app/evaluation.h"
#include "engine/app/loading.h"
#include "engine/cli/batch_progress.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/eval_table.h"
#include "engine/cli/interrupt_watch.h"
#include "engine/cli/run_output.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/priority.h"

namespace engine::cli {
namespace {

struct BatchCommandOptions {
  std::string workflow;
  std::string llm;
  app::BatchOptions batch;
  std::string data;
  std::string out;
  std::string shard;
  size_t shards = 0;
  double rpm = 0;
  double tpm = 0;
  std::string trace_file;
  std::string otlp;
  app::StoreOptions store;
  std::string eval_file;
  std::optional<double> threshold;
  bool progress = false;
  bool no_progress = false;
  bool json = false;
  int nice = 5;
};

int run_batch(BatchCommandOptions& o) {
  // Not marked required, so that `engine batch merge` needs none of them.
  if (o.workflow.empty() || o.data.empty() || o.out.empty())
    throw Error(ErrorKind::Usage, "engine batch needs a WORKFLOW, --data FILE and --out FILE (see engine batch --help)");
  // Before any thread starts, so that every thread of the batch inherits it (core/priority.h).
  lower_priority(o.nice);
  Cancel stop_launching;
  Cancel cancel_runs;
  // A batch in the background of a script (started ignoring SIGINT) still stops as Ctrl-C stops it: its results are
  // kept and resumed, so stopping it is never a loss.
  InterruptWatch interrupts({&stop_launching, &cancel_runs},
                            {"batch: stopping: no new runs start, the runs in flight finish and are written "
                             "(Ctrl-C again cancels them)",
                             "batch: cancelling the runs in flight (Ctrl-C again ends the process at once)"},
                            true);
  app::BatchOptions options = o.batch;
  options.data = o.data;
  options.out = o.out;
  std::string shard_source = "--shard";
  options.shard = o.shard.empty() ? app::shard_from_environment(o.shards, std::getenv, shard_source)
                                  : app::parse_shard(o.shard);
  if (!o.shard.empty() && o.shards > 0) throw Error(ErrorKind::Usage, "give --shard K/N or --shards N, not both");
  // Each run may have a few calls in flight (parallel steps); the workflow's llm.max_concurrent_calls, if set, wins.
  auto executor = load_executor(
      o.workflow, {.llm = o.llm, .calls_in_flight = options.concurrency * 2, .rate_limits = {o.rpm, o.tpm}});
  // Built before the batch starts (or creates its results file), so a mistake in it costs nothing.
  std::optional<app::Evaluation> evaluation;
  if (!o.eval_file.empty()) evaluation.emplace(o.eval_file, console_secrets());
  // The runs' trace file is appended to, run after run; with no observer, no run builds an event.
  app::RunObservers observers({.trace_file = o.trace_file, .append_trace = true, .otlp = o.otlp, .store = o.store,
                               .source = {"batch", o.workflow}, .secrets = console_secrets()});
  options.traced = observers.traced();
  options.before_result = [&observers] { observers.wait_recorded(); };
  auto batch = std::make_unique<app::Batch>(executor, options);

  bool show_progress = o.progress || (!o.no_progress && stderr_is_terminal());
  BatchProgress progress(std::cerr, show_progress, options.shard, shard_source);
  progress.start([&] { return batch->counts(); });
  app::BatchSummary summary = batch->run(observers.sink(), stop_launching, cancel_runs);
  progress.stop();
  batch.reset();  // lets go of the results file, which the evaluation locks in its turn

  print_summary(std::cerr, summary, options.out.string());
  warn_of(observers.finish());  // the summary is shown first: the runs' results are in their file all the same
  if (interrupts.signal()) {
    if (o.json) std::cout << to_json_text(summary.to_json()) << std::endl;
    return interrupted_exit_code(interrupts.signal());
  }
  std::optional<app::EvaluationReport> report;
  if (evaluation) report = evaluation->run({.results = options.out, .threshold = o.threshold}, cancel_runs);
  if (o.json) {
    Value doc = summary.to_json();
    if (report) doc["eval"] = report->to_json();
    std::cout << to_json_text(doc) << std::endl;
  } else if (report) {
    print_evaluation(std::cout, *report);
  }
  if (report && !report->ok()) return kRunFailed;
  return summary.counts.failed > 0 ? kRunFailed : kOk;
}

struct MergeOptions {
  std::vector<std::string> files;
  std::string out;
  std::string data;
  bool json = false;
};

int merge(const MergeOptions& o) {
  std::vector<std::filesystem::path> files(o.files.begin(), o.files.end());
  std::optional<size_t> rows = o.data.empty() ? std::nullopt : app::count_rows(o.data);
  app::MergeReport report = app::merge_results(files, o.out, rows);
  if (o.json) std::cout << to_json_text(report.to_json()) << std::endl;
  std::cerr << "merged " << report.lines << " of " << report.rows << " rows into " << o.out << "\n";
  auto list = [](const std::vector<size_t>& rows) {
    std::string text;
    for (size_t i = 0; i < rows.size() && i < 20; ++i) text += (i ? ", " : "") + std::to_string(rows[i]);
    return rows.size() > 20 ? text + ", ... (" + std::to_string(rows.size()) + " in all)" : text;
  };
  if (!report.missing.empty()) {
    std::string ranges;
    for (size_t i = 0; i < report.missing.size() && i < 20; ++i) {
      const app::RowRange& r = report.missing[i];
      ranges += (i ? ", " : "") + std::to_string(r.first) + (r.last > r.first ? "-" + std::to_string(r.last) : "");
    }
    if (report.missing.size() > 20) ranges += ", ...";
    std::cerr << "missing rows: " << ranges << " (" << report.missing_rows << " in all)\n";
  }
  if (!report.duplicates.empty()) std::cerr << "rows with more than one line (the first ok one kept): " << list(report.duplicates) << "\n";
  for (const auto& t : report.torn) std::cerr << "left out a line cut short: " << t << "\n";
  std::cerr.flush();
  return report.complete() ? kOk : kRunFailed;
}

CLI::App* add_merge_command(CLI::App& batch, int& exit_code) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* cmd = batch.add_subcommand("merge", "Combine the results files of a batch's shards in the data's order, "
                                                "reporting missing and duplicate rows");
  cmd->add_option("files", o->files, "The results files to combine")->required();
  cmd->add_option("--out", o->out, "The combined file")->required();
  cmd->add_option("--data", o->data, "The batch's data, to find rows missing at its end");
  cmd->add_flag("--json", o->json, "Print {lines, rows, complete, missing, missing_rows, duplicates, torn} as JSON on stdout");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return merge(*o); }); });
  return cmd;
}

}  // namespace

void add_batch_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BatchCommandOptions>();
  CLI::App* cmd = app.add_subcommand("batch", "Run a workflow over every row of a data file (JSON lines or CSV); "
                                               "the same --out again goes on where it stopped");
  cmd->add_option("workflow", o->workflow, "The workflow YAML file");
  cmd->add_option("--data", o->data, "The rows: JSON lines (an object per line) or CSV with a header row");
  cmd->add_option("--out", o->out, "The results, a JSON line per row, written as each run ends");
  cmd->add_option("--map", o->batch.map, "Which column an input reads: INPUT=COLUMN (default: the input's name)");
  cmd->add_option("-c,--concurrency", o->batch.concurrency, "How many runs at once, 1 to 16384 (default 4)")
      ->check(whole_number(1, limits::kBatchConcurrency));
  cmd->add_option("--rpm", o->rpm, "At most this many model requests per minute, over the whole batch")
      ->check(finite_number(0, 1e9));
  cmd->add_option("--tpm", o->tpm, "At most this many tokens per minute, over the whole batch")
      ->check(finite_number(0, 1e12));
  cmd->add_flag("--retry-failed", o->batch.retry_failed, "Run again the rows whose lines in --out failed");
  cmd->add_option("--shard", o->shard, "Run only shard K of N (from 0): the rows whose index modulo N is K");
  cmd->add_option("--shards", o->shards, "The number of shards, the shard itself from JOB_COMPLETION_INDEX or "
                  "SLURM_ARRAY_TASK_ID")
      ->check(whole_number(1, limits::kShards));
  cmd->add_option("--llm", o->llm, "Use another model than the workflow's: PROVIDER:MODEL or replay:FILE");
  cmd->add_option("--eval", o->eval_file, "Score the results with this evaluation file when the batch ends "
                  "(as engine eval)");
  cmd->add_option("--threshold", o->threshold, "With --eval: the pass rate each evaluator needs (exit 1 below it)")
      ->check(finite_number(0, 1));
  cmd->add_option("--nice", o->nice, "The batch's CPU priority as Linux nice, 0 to 19 (default 5): a model server "
                  "on the same machine gets the CPU first")
      ->check(whole_number(0, 19));
  cmd->add_option("--trace", o->trace_file, "Append every run's events to FILE as JSON lines (each with its run_id)");
  cmd->add_option("--otlp", o->otlp, "Send every run's spans to an OpenTelemetry collector at URL (OTLP/HTTP JSON; "
                  "OTEL_EXPORTER_OTLP_ENDPOINT does the same)");
  add_store_options(*cmd, o->store);
  auto* progress = cmd->add_flag("--progress", o->progress, "Show the progress line even when stderr is not a terminal");
  cmd->add_flag("--no-progress", o->no_progress, "Never show the progress line")->excludes(progress);
  cmd->add_flag("--json", o->json, "Print the summary as JSON on stdout");
  CLI::App* merge = add_merge_command(*cmd, exit_code);
  cmd->callback([o, merge, &exit_code] {
    if (!merge->parsed()) exit_code = guarded([&] { return run_batch(*o); });
  });
}

}  // namespace engine::cli
