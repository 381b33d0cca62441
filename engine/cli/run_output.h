#pragma once
// What `engine run` and `engine chat` share around a run: where its steps go (the console on stderr, a --trace
// file), whether tokens stream, and how the answer is printed.
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/event.h"
#include "engine/core/redact.h"
#include "engine/trace/console_printer.h"
#include "engine/trace/jsonl_writer.h"

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
};

void add_output_options(CLI::App& cmd, OutputOptions& options);

// The sinks of a command's runs, every event redacted first. Opens the --trace file (truncating it); throws Error
// "io.write_failed" when it cannot.
class RunOutput {
 public:
  RunOutput(const OutputOptions& options, const Redactor& redactor, std::vector<std::string> tool_names);
  EventSink& sink() { return redacted_; }
  // Tokens as they arrive are for a person watching: on by default when the steps go to a terminal. --stream is
  // honoured even with -q: the tokens then go to the --trace file only.
  bool stream() const { return stream_; }

 private:
  EventFanout events_;
  trace::ConsolePrinter console_;
  std::ofstream trace_out_;
  std::optional<trace::JsonlWriter> jsonl_;
  RedactingSink redacted_;
  bool stream_;
};

// The answer on stdout, redacted: into a pipe byte for byte, on a terminal with its control bytes escaped.
void print_answer(const Value& output, const Redactor& redactor);

}  // namespace engine::cli
