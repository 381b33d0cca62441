// engine run WORKFLOW --input ...: runs the agent; the answer alone goes to stdout, the trace to stderr.
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/redact.h"
#include "engine/core/text.h"
#include "engine/trace/console_printer.h"
#include "engine/trace/jsonl_writer.h"

namespace engine::cli {
namespace {

struct RunOptions {
  std::string workflow;
  std::string llm;  // --llm PROVIDER:MODEL
  std::string record_file;
  std::string replay_file;
  bool stream = false;
  bool no_stream = false;
  InputOptions inputs;
  bool json = false;
  bool quiet = false;
  bool no_color = false;
  std::string trace_file;
};

int run(const RunOptions& o) {
  if (!o.replay_file.empty() && !o.llm.empty())
    throw Error("usage", "--replay FILE and --llm both choose the model; give one of them");
  std::string llm = o.replay_file.empty() ? o.llm : "replay:" + o.replay_file;
  auto executor = build_executor(o.workflow, llm, assemble::BuildOptions{.record_file = o.record_file});
  Value inputs = collect_inputs(*executor, o.inputs);

  EventFanout events;
  trace::ConsolePrinter console(std::cerr, stderr_wants_color(o.no_color), executor->tools().names());
  if (!o.quiet) events.add(&console);
  std::ofstream trace_out;
  std::optional<trace::JsonlWriter> jsonl;
  if (!o.trace_file.empty()) {
    trace_out.open(o.trace_file, std::ios::trunc);
    if (!trace_out) throw Error("io.write_failed", "cannot write the trace file '" + o.trace_file + "'");
    jsonl.emplace(trace_out);
    events.add(&*jsonl);
  }

  // Tokens as they arrive are for a person watching: on by default when the steps go to a terminal.
  // --stream is honoured even with -q: the tokens then go to the --trace file only.
  bool stream = o.stream || (!o.no_stream && !o.quiet && stderr_is_terminal());
  // Every output passes the executor's redactor: a key that reached the run by way of the workflow or an input is
  // masked on the console, in the trace, in --json and in errors alike.
  const Redactor& redactor = executor->redactor();
  RedactingSink redacted(events, redactor);
  agent::RunResult result = executor->run(inputs, redacted, agent::RunOptions{.stream = stream});
  if (o.json) {
    Value doc = result.to_json();
    redact_value(doc, redactor);
    std::cout << doc.dump(2, ' ', false, Value::error_handler_t::replace) << std::endl;
  } else if (result.ok()) {
    // Into a pipe the answer goes byte for byte; on a terminal its control bytes are escaped like the steps'.
    std::string answer = redactor.redact(result.output.is_string() ? result.output.get<std::string>()
                                                                    : to_json_text(result.output));
    std::cout << (isatty(STDOUT_FILENO) ? terminal_safe(answer) : answer) << std::endl;
  }
  if (!result.ok()) {
    print_error(redactor.redact(result.error->message));
    return kRunFailed;
  }
  return kOk;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a workflow: the answer goes to stdout, the steps to stderr");
  cmd->add_option("workflow", o->workflow, "The workflow YAML file")->required();
  add_input_options(*cmd, o->inputs);
  cmd->add_option("--llm", o->llm, "Use another model than the workflow's: PROVIDER:MODEL, e.g. openai:gpt-4o-mini, "
                  "ollama:llama3.2, llamacpp:local, anthropic:claude-3-5-haiku-latest, or replay:FILE");
  cmd->add_option("--record", o->record_file, "Write every LLM request and response to FILE as JSON lines (keys "
                  "redacted), for --replay");
  cmd->add_option("--replay", o->replay_file, "Answer from a file written by --record instead of a model "
                  "(the same as --llm replay:FILE)");
  auto* stream = cmd->add_flag("--stream", o->stream, "Show the model's text as it arrives (the default on a terminal)");
  cmd->add_flag("--no-stream", o->no_stream, "Show the model's text only once each answer is complete")->excludes(stream);
  cmd->add_flag("--json", o->json, "Print {output, intermediate_steps, usage, elapsed_ms, stopped_reason} as JSON");
  cmd->add_option("--trace", o->trace_file, "Write every event to FILE as JSON lines");
  cmd->add_flag("-q,--quiet", o->quiet, "Do not show the steps on stderr");
  cmd->add_flag("--no-color", o->no_color, "Never colour the steps (NO_COLOR does the same)");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return run(*o); }); });
}

}  // namespace engine::cli
