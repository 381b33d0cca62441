#include "engine/cli/run_output.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/console_mask.h"
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

RunOutput::RunOutput(const OutputOptions& o, std::vector<std::string> tool_names, trace::RunSource source)
    : console_(std::cerr, stderr_wants_color(o.no_color), std::move(tool_names)),
      spans_(o.otlp),
      recording_(o.store, std::move(source), console_secrets()),
      stream_(o.stream || (!o.no_stream && !o.quiet && stderr_is_terminal())) {
  if (EventSink* spans = spans_.sink()) events_.add(spans);
  if (EventSink* store = recording_.sink()) events_.add(store);
  if (!o.quiet) events_.add(&console_);
  if (!o.trace_file.empty()) {
    trace_.emplace(o.trace_file, std::ios::trunc);
    events_.add(&trace_->sink());
  }
}

void add_store_options(CLI::App& cmd, app::StoreOptions& o) {
  auto* file = cmd.add_option("--store", o.file, "Record the runs in this run store (default: ENGINE_STORE, or "
                                                 "~/.local/share/engine/runs.db)");
  cmd.add_flag("--no-store", o.off, "Do not record the runs (ENGINE_STORE=off does the same)")->excludes(file);
}

void warn_of_recording(const app::RunRecording& recording) {
  if (std::string why = recording.problem(); !why.empty()) std::cerr << "engine: warning: " << why << std::endl;
}

void print_answer(const Value& output) {
  // No answer (the last step was skipped) prints as nothing, never the word null.
  std::string answer = output.is_null() ? "" : output.is_string() ? output.get<std::string>() : to_json_text(output);
  std::cout << (isatty(STDOUT_FILENO) ? terminal_safe(answer) : answer) << std::endl;
}

}  // namespace engine::cli
