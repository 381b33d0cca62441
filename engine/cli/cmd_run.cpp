// engine run WORKFLOW --input ...: runs the agent; the answer alone goes to stdout, the trace to stderr.
// With --session FILE, the run is one turn of a chat session: it sees the session's history, and is added to it.
#include <iostream>
#include <optional>

#include "engine/app/chat_turn.h"
#include "engine/app/durable_runs.h"
#include "engine/app/inputs.h"
#include "engine/app/loading.h"
#include "engine/app/session.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/interrupt_watch.h"
#include "engine/cli/run_output.h"
#include "engine/core/error.h"
#include "engine/cli/console_mask.h"

namespace engine::cli {
namespace {

struct RunOptions {
  std::string workflow;
  std::string llm;  // --llm PROVIDER:MODEL
  std::string record_file;
  std::string replay_file;
  std::string session_file;
  InputOptions inputs;
  OutputOptions output;
  std::string durability;  // none: the workflow's `durability:`, else async
  bool json = false;
  bool yes = false;  // approve the calls whose approve: asks
};

int run(const RunOptions& o) {
  Cancel cancel;
  InterruptWatch interrupts(cancel);
  auto executor =
      load_executor(o.workflow, {.llm = app::model_override(o.llm, o.replay_file), .record_file = o.record_file});
  std::optional<app::Session> session;
  if (!o.session_file.empty()) {
    app::require_chat_input(*executor);
    session = app::Session::open(o.session_file, executor->chat_output(), console_secrets());
  }

  // What the run shows is masked where it leaves (stdout, stderr, the trace file): a key that reached the run by way
  // of the workflow or an input is masked on the console, in the trace, in --json and in errors alike.
  RunOutput out(o.output, executor->tools().names(), {"run", o.workflow});
  agent::RunOptions options{.stream = out.stream(), .cancel = &cancel};
  options.approve_asked = o.yes;
  agent::RunResult result =
      session ? app::run_observed(out.observers(), options,
                                  [&](EventSink& events, const agent::RunOptions& observed) {
                                    return app::run_chat_turn(*executor, *session,
                                                              app::given_inputs(*executor, o.inputs), events, observed);
                                  })
              : app::run_journaled(out.observers(), *executor, o.workflow, app::collect_inputs(*executor, o.inputs),
                                   options, o.durability.empty() ? executor->durability().value_or(Durability::Async)
                                                                 : *durability_named(o.durability));
  return report_run(out, result, o.json, interrupts, o.output.no_color);
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
  cmd->add_option("--session", o->session_file, "Play one turn of the chat session in FILE (created if absent): the "
                  "run sees its history, and the turn is added to it");
  cmd->add_flag("--json", o->json, "Print {output, intermediate_steps, usage, elapsed_ms, stopped_reason} as JSON");
  cmd->add_option("--durability", o->durability, "When the run's journal reaches the disk: sync (every entry before "
                  "the run goes on), async (grouped; a tool's intent still before its effect), exit (at the end only). "
                  "Default: the workflow's durability:, else async")
      ->check(CLI::IsMember(durability_names()));
  cmd->add_flag("--yes,-y", o->yes, "Approve every tool call whose approve: asks (never one it denies)");
  add_output_options(*cmd, o->output);
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return run(*o); }, o->output.no_color); });
}

}  // namespace engine::cli
