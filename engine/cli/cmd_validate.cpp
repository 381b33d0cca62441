// engine validate WORKFLOW: every static check, no LLM call.
#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"

namespace engine::cli {

void add_validate_command(CLI::App& app, int& exit_code) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a workflow without calling the LLM");
  cmd->add_option("workflow", *path, "The workflow YAML file")->required();
  cmd->callback([path, &exit_code] {
    exit_code = guarded([&] {
      auto executor = build_executor(*path);
      std::cout << *path << ": ok (" << executor->tools().all().size() << " tools, " << executor->inputs().size()
                << " inputs)" << std::endl;
      return kOk;
    });
  });
}

}  // namespace engine::cli
