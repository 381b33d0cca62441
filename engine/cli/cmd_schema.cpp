// engine schema: the workflow format's JSON Schema, for editors and CI.
#include <iostream>

#include "engine/app/inspection.h"
#include "engine/cli/commands.h"

namespace engine::cli {

void add_schema_command(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "schema", "Print the JSON Schema of the workflow format (for editors: docs/cli.md, \"Editors\")");
  cmd->callback([&exit_code] {
    std::cout << app::workflow_schema();
    std::cout.flush();
    exit_code = kOk;
  });
}

}  // namespace engine::cli
