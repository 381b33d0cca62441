// engine: turns workflow YAML files into running LLM agents.
#include <CLI/CLI.hpp>

#include "engine/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"engine: declarative LLM agents and workflows from YAML"};
  app.set_version_flag("--version", "engine 0.1.0");
  app.require_subcommand(1);
  int exit_code = engine::cli::kOk;
  engine::cli::add_run_command(app, exit_code);
  engine::cli::add_chat_command(app, exit_code);
  engine::cli::add_validate_command(app, exit_code);
  engine::cli::add_render_command(app, exit_code);
  engine::cli::add_parse_command(app, exit_code);
  engine::cli::add_tools_commands(app, exit_code);
  engine::cli::add_batch_command(app, exit_code);
  engine::cli::add_eval_command(app, exit_code);
  engine::cli::add_test_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : engine::cli::kBadInput;  // --help exits 0; usage errors are bad input
  }
  return exit_code;
}
