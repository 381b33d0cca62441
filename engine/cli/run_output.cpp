#include "engine/cli/run_output.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/interrupt_watch.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::cli {

void add_output_options(CLI::App& cmd, OutputOptions& o) {
  auto* stream = cmd.add_flag("--stream", o.stream, "Show the model's text as it arrives (the default on a terminal)");
  cmd.add_flag("--no-stream", o.no_stream, "Show the model's text only once each answer is complete")->excludes(stream);
  cmd.add_option("--trace", o.trace_file, "Write every event to FILE as JSON lines");
  cmd.add_option("--otlp", o.otlp, "Send the runs' spans to an OpenTelemetry collector at URL (OTLP/HTTP JSON; "
                 "OTEL_EXPORTER_OTLP_ENDPOINT does the same)");
  add_store_options(cmd, o.store);
  cmd.add_flag("-q,--quiet", o.quiet, "Do not show the steps on stderr");
  cmd.add_flag("--no-color", o.no_color, "Never colour the steps (NO_COLOR does the same)");
}

app::ObserverOptions observer_options(const OutputOptions& o, trace::RunSource source) {
  return {.trace_file = o.trace_file, .otlp = o.otlp, .store = o.store, .source = std::move(source),
          .secrets = console_secrets()};
}

RunOutput::RunOutput(const OutputOptions& o, std::vector<std::string> tool_names, trace::RunSource source)
    : console_(std::cerr, stderr_wants_color(o.no_color), std::move(tool_names)),
      observers_(observer_options(o, std::move(source))),
      stream_(o.stream || (!o.no_stream && !o.quiet && stderr_is_terminal())) {
  if (!o.quiet) observers_.add(&console_);
}

void RunOutput::finish() {
  finished_ = true;
  warn_of(observers_.finish());
}

RunOutput::~RunOutput() {
  if (finished_) return;
  try {
    warn_of(observers_.finish());
  } catch (const Error&) {
    // The command failed already, and says so: a trace file cut short as well is not what it reports.
  }
}

void warn_of(const app::RunObservers::Ended& ended) {
  warn_of_dropped_spans(ended.spans);
  if (!ended.not_recorded.empty()) std::cerr << "engine: warning: " << ended.not_recorded << std::endl;
}

void warn_of_dropped_spans(const trace::OtlpExporter::Counts& counts) {
  if (counts.dropped == 0) return;
  std::cerr << "engine: warning: " << counts.dropped << " span" << (counts.dropped == 1 ? "" : "s")
            << " could not be sent to the OpenTelemetry collector"
            << (counts.last_error.empty() ? std::string() : " (" + counts.last_error + ")") << std::endl;
}

void add_store_options(CLI::App& cmd, app::StoreOptions& o) {
  auto* file = cmd.add_option("--store", o.file, "Record the runs in this run store (default: ENGINE_STORE, or "
                                                 "~/.local/share/engine/runs.db)");
  cmd.add_flag("--no-store", o.off, "Do not record the runs (ENGINE_STORE=off does the same)")->excludes(file);
}

void print_answer(const Value& output) {
  // No answer (the last step was skipped) prints as nothing, never the word null.
  std::string answer = output.is_null() ? "" : output.is_string() ? output.get<std::string>() : to_json_text(output);
  std::cout << (isatty(STDOUT_FILENO) ? terminal_safe(answer) : answer) << std::endl;
}

int report_run(RunOutput& out, const agent::RunResult& result, bool json, const InterruptWatch& interrupts, bool no_color) {
  if (json) std::cout << result.to_json().dump(2, ' ', false, Value::error_handler_t::replace) << std::endl;
  else if (result.ok()) print_answer(result.output);
  out.finish();
  if (result.ok()) return kOk;
  print_error(result.error->kind, result.error->formatted(), no_color);
  if (result.stopped_reason == StoppedReason::Cancelled && interrupts.signal()) return interrupted_exit_code(interrupts.signal());
  return result.error->kind == ErrorKind::RunWaiting ? kWaiting : kRunFailed;
}

}  // namespace engine::cli
