#pragma once
// Help that guides: `engine` alone lists the commands, and an unknown command or flag is answered with the nearest
// one ("did you mean"), as git, cargo and kubectl answer.
#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace engine::cli {

// The commands, one line each, and how to get a command's flags.
void print_commands(const CLI::App& app, std::ostream& out);
// "The documentation: FOLDER (...)" when the engine has its documentation beside it, else "": the last line of the
// command list and of `engine --help`.
std::string documentation_line();

// For argv whose first argument names no command: "unknown command 'runn' (did you mean 'run'?)". None when the
// first argument is a command or a flag (CLI11 then handles it).
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv);

// After CLI11 refused arguments it did not expect: "unknown flag '--inptu' for 'engine run' (did you mean
// '--input'?)" for the first flag the command does not have; none when every refused argument is not a flag.
std::optional<std::string> unknown_flag(const CLI::App& app, int argc, char** argv);

// After CLI11 found a command's workflow missing (`engine run` alone): what to write, with an example, for the
// commands that take one; none for any other missing argument.
std::optional<std::string> missing_workflow(const CLI::App& app, int argc, char** argv, const CLI::RequiredError& e);

}  // namespace engine::cli
