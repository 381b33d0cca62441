#pragma once
// What `engine run` and `engine chat` share around a run: where its steps go (the console on stderr, a --trace
// file), whether tokens stream, and how the answer is printed.
#include <optional>
#include <string>
#include <vector>

#include "engine/app/run_observers.h"
#include "engine/core/event.h"
#include "engine/trace/console_printer.h"

namespace CLI {
class App;
}

namespace engine::cli {

class InterruptWatch;

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
// The observers of a command's runs (app/run_observers.h) over the console's secrets: the --trace file, spans, the
// run store.
app::ObserverOptions observer_options(const OutputOptions& options, trace::RunSource source);
// "engine: warning: ..." on stderr for spans the collector did not take and runs the store did not record.
void warn_of(const app::RunObservers::Ended& ended);
// "engine: warning: 3 spans could not be sent to the OpenTelemetry collector (...)" on stderr, when any were not.
void warn_of_dropped_spans(const trace::OtlpExporter::Counts& counts);

// What `run` and `chat` watch their runs with: the observers and the console on stderr. Throws Error
// "io.write_failed" when the trace file cannot be written.
class RunOutput {
 public:
  RunOutput(const OutputOptions& options, std::vector<std::string> tool_names, trace::RunSource source);
  ~RunOutput();  // the end of a command that failed on the way: what finish() would say, said
  app::RunObservers& observers() { return observers_; }
  // Tokens as they arrive are for a person watching: on by default when the steps go to a terminal. --stream is
  // honoured even with -q: the tokens then go to the --trace file only.
  bool stream() const { return stream_; }
  // After the runs: the observers finished, what they could not do warned of. Throws Error "io.write_failed" when
  // the trace file was not written to the end.
  void finish();

 private:
  trace::ConsolePrinter console_;
  app::RunObservers observers_;
  bool stream_;
  bool finished_ = false;
};

// The answer on stdout: into a pipe byte for byte, on a terminal with its control bytes escaped.
void print_answer(const Value& output);

// How `run` and `runs resume` end: the answer (or with `json` the whole result) on stdout, the observers finished,
// a failure's error on stderr; returns the exit code (130 or 143 for a run a signal stopped).
int report_run(RunOutput& out, const agent::RunResult& result, bool json, const InterruptWatch& interrupts, bool no_color);

}  // namespace engine::cli
