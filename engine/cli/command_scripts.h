#pragma once
// Shell completion scripts and the manual page, made from the commands' own definitions, so they list exactly the
// commands and flags the engine has, with the descriptions `--help` shows.
#include <CLI/CLI.hpp>

#include <string>

namespace engine::cli {

// `shell` is bash, zsh or fish; the script completes commands, flags and workflow files.
std::string completion_script(const CLI::App& app, const std::string& shell);

// engine(1) in roff (man's -man macros).
std::string manual_page(const CLI::App& app);

}  // namespace engine::cli
