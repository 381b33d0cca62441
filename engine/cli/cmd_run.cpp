// engine run WORKFLOW --input ...: runs the agent; the answer alone goes to stdout, the trace to stderr.
#include <fstream>
#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/trace/console_printer.h"
#include "engine/trace/jsonl_writer.h"

namespace engine::cli {
namespace {

struct RunOptions {
  std::string workflow;
  std::string llm;  // --llm PROVIDER:MODEL
  InputOptions inputs;
  bool json = false;
  bool quiet = false;
  bool no_color = false;
  std::string trace_file;
};

int run(const RunOptions& o) {
  auto executor = build_executor(o.workflow, o.llm);
  Value inputs = collect_inputs(*executor, o.inputs);

  EventFanout events;
  trace::ConsolePrinter console(std::cerr, stderr_wants_color(o.no_color));
  if (!o.quiet) events.add(&console);
  std::ofstream trace_out;
  std::optional<trace::JsonlWriter> jsonl;
  if (!o.trace_file.empty()) {
    trace_out.open(o.trace_file, std::ios::trunc);
    if (!trace_out) throw Error("io.write_failed", "cannot write the trace file '" + o.trace_file + "'");
    jsonl.emplace(trace_out);
    events.add(&*jsonl);
  }

  agent::RunResult result = executor->run(inputs, events);
  if (o.json) {
    std::cout << result.to_json().dump(2, ' ', false, Value::error_handler_t::replace) << std::endl;
  } else if (result.ok()) {
    std::cout << result.output << std::endl;
  }
  if (!result.ok()) {
    print_error(result.error->message);
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
                  "ollama:llama3.2, llamacpp:local");
  cmd->add_flag("--json", o->json, "Print {output, intermediate_steps, usage, elapsed_ms, stopped_reason} as JSON");
  cmd->add_option("--trace", o->trace_file, "Write every event to FILE as JSON lines");
  cmd->add_flag("-q,--quiet", o->quiet, "Do not show the steps on stderr");
  cmd->add_flag("--no-color", o->no_color, "Never colour the steps (NO_COLOR does the same)");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return run(*o); }); });
}

}  // namespace engine::cli
