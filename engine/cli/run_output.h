#pragma once
// What `engine run` and `engine chat` share around a run: where its steps go (the console on stderr, a --trace
// file), whether tokens stream, and how the answer is printed.
#include <optional>
#include <string>
#include <vector>

#include "engine/app/run_recording.h"
#include "engine/core/event.h"
#include "engine/cli/span_export.h"
#include "engine/cli/trace_file.h"
#include "engine/trace/console_printer.h"

namespace CLI {
class App;
}

namespace engine::cli {

struct OutputOptions {
  bool stream = false;
  bool no_stream = false;
  bool quiet = false;
  bool no_color = false;
  std::string trace_file;
  std::string otlp;  // --otlp URL: the runs' spans to an OpenTelemetry collector
  app::StoreOptions store;
};

void add_output_options(CLI::App& cmd, OutputOptions& options);
// --store PATH and --no-store, for the commands that record runs.
void add_store_options(CLI::App& cmd, app::StoreOptions& options);
// "engine: warning: ..." on stderr when the runs are not all recorded.
void warn_of_recording(const app::RunRecording& recording);

// The sinks of a command's runs: the console on stderr, the --trace file (truncated), spans and the run store, each
// masked where its bytes leave by the console's secrets (console_mask.h). Throws Error "io.write_failed" when the
// file cannot be written.
class RunOutput {
 public:
  RunOutput(const OutputOptions& options, std::vector<std::string> tool_names, trace::RunSource source);
  ~RunOutput() { warn_of_recording(recording_); }
  EventSink& sink() { return events_; }
  // Tokens as they arrive are for a person watching: on by default when the steps go to a terminal. --stream is
  // honoured even with -q: the tokens then go to the --trace file only.
  bool stream() const { return stream_; }
  // A new trace for a run when its spans are sent somewhere, else none (span_export.h).
  std::optional<TraceContext> new_trace() const { return spans_.new_trace(); }
  // After the runs: the --trace file written to the end. Throws Error "io.write_failed" when it was not.
  void finish() {
    if (trace_) trace_->finish();
  }

 private:
  EventFanout events_;
  trace::ConsolePrinter console_;
  std::optional<TraceFile> trace_;
  SpanExport spans_;
  app::RunRecording recording_;
  bool stream_;
};

// The answer on stdout: into a pipe byte for byte, on a terminal with its control bytes escaped.
void print_answer(const Value& output);

}  // namespace engine::cli
