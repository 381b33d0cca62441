// engine completion SHELL and engine man: the completion scripts and the manual page, from the commands themselves.
#include <iostream>

#include "engine/cli/command_scripts.h"
#include "engine/cli/commands.h"

namespace engine::cli {

void add_completion_commands(CLI::App& app, int& exit_code) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand(
      "completion", "Print a shell completion script: commands, flags and workflow files (docs/cli.md)");
  completion->add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  completion->callback([&app, shell, &exit_code] {
    std::cout << completion_script(app, *shell);
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
