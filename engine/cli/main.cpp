// engine: turns workflow YAML files into running LLM agents.
#include <CLI/CLI.hpp>

#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/command_guide.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"

namespace {

int run_command(int argc, char** argv) {
  CLI::App app{"engine: declarative LLM agents and workflows from YAML"};
  app.set_version_flag("--version", "engine 0.1.0");
  // Looked for only when the help is shown: no command pays for it at start.
  app.footer(engine::cli::documentation_line);
  app.require_subcommand(1);
  int exit_code = engine::cli::kOk;
  engine::cli::add_init_command(app, exit_code);
  engine::cli::add_run_command(app, exit_code);
  engine::cli::add_chat_command(app, exit_code);
  engine::cli::add_validate_command(app, exit_code);
  engine::cli::add_render_command(app, exit_code);
  engine::cli::add_parse_command(app, exit_code);
  engine::cli::add_tools_commands(app, exit_code);
  engine::cli::add_index_command(app, exit_code);
  engine::cli::add_batch_command(app, exit_code);
  engine::cli::add_runs_command(app, exit_code);
  engine::cli::add_ui_command(app, exit_code);
  engine::cli::add_eval_command(app, exit_code);
  engine::cli::add_test_command(app, exit_code);
  engine::cli::add_schema_command(app, exit_code);
  engine::cli::add_serve_command(app, exit_code);
  engine::cli::add_mcp_command(app, exit_code);
  engine::cli::add_completion_commands(app, exit_code);
  if (argc == 1) {
    engine::cli::print_commands(app, std::cout);
    return engine::cli::kOk;
  }
  if (auto unknown = engine::cli::unknown_command(app, argc, argv)) {
    engine::cli::print_error(engine::ErrorKind::Usage, *unknown);
    return engine::cli::kBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    auto unknown = engine::cli::unknown_flag(app, argc, argv);
    if (!unknown) return app.exit(e) == 0 ? 0 : engine::cli::kBadInput;
    engine::cli::print_error(engine::ErrorKind::Usage, *unknown);
    return engine::cli::kBadInput;
  } catch (const CLI::RequiredError& e) {
    if (auto hint = engine::cli::missing_workflow(app, argc, argv, e)) {
      engine::cli::print_error(engine::ErrorKind::Usage, *hint);
      return engine::cli::kBadInput;
    }
    return app.exit(e) == 0 ? 0 : engine::cli::kBadInput;
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : engine::cli::kBadInput;  // --help exits 0; usage errors are bad input
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Every byte the command writes to stdout and stderr leaves masked: the one place keys are kept from the console.
  engine::cli::ConsoleMask console_mask;
  int exit_code = run_command(argc, argv);
  // An answer that never reached its reader is a failure, not a success (`engine run > /dev/full`).
  if (!console_mask.finish_output()) {
    engine::cli::print_error(engine::ErrorKind::IoWriteFailed,
                             "cannot write the output to stdout (a full disk, or a reader that stopped reading)");
    if (exit_code == engine::cli::kOk) exit_code = engine::cli::kRunFailed;
  }
  return exit_code;
}
