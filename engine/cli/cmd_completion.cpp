// engine completion SHELL and engine man: the completion scripts and the manual page, from the commands themselves.
#include <iostream>

#include "engine/app/loading.h"
#include "engine/cli/command_scripts.h"
#include "engine/cli/commands.h"

namespace engine::cli {

void add_completion_commands(CLI::App& app, int& exit_code) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand(
      "completion",
      "Print a shell completion script: commands, flags, workflow files and the installed workflows' names "
      "(docs/cli.md); `workflows` prints those names, one a line");
  completion->add_option("shell", *shell, "bash, zsh or fish; or workflows")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish", "workflows"}));
  completion->callback([&app, shell, &exit_code] {
    // The scripts ask the engine they complete for the names, so ENGINE_PATH and the install in use are the ones
    // a bare name would be looked up in.
    if (*shell == "workflows") {
      for (const std::string& name : app::installed_workflow_names()) std::cout << name << '\n';
    } else {
      std::cout << completion_script(app, *shell);
    }
    std::cout.flush();
    exit_code = kOk;
  });
  CLI::App* man = app.add_subcommand("man", "Print the manual page, engine(1), in roff: engine man | man -l -");
  man->callback([&app, &exit_code] {
    std::cout << manual_page(app);
    std::cout.flush();
    exit_code = kOk;
  });
}

}  // namespace engine::cli
