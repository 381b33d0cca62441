// engine schema [workflow|test|eval]: the JSON Schema of workflows, test files or evaluation files, for editors and CI.
#include <iostream>
#include <memory>

#include "engine/app/inspection.h"
#include "engine/cli/commands.h"

namespace engine::cli {

void add_schema_command(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "schema", "Print the JSON Schema of workflows, test files or evaluation files (for editors: docs/cli.md, \"Editors\")");
  auto which = std::make_shared<std::string>("workflow");
  cmd->add_option("format", *which, "workflow (the default), test or eval")->check(CLI::IsMember({"workflow", "test", "eval"}));
  cmd->callback([&exit_code, which] {
    std::cout << app::workflow_schema(*which);
    std::cout.flush();
    exit_code = kOk;
  });
}

}  // namespace engine::cli
