#pragma once
// What several commands share: the --input options, reporting errors, whether stderr is a terminal.
#include <functional>
#include <string>
#include <vector>

#include "engine/app/inputs.h"
#include "engine/app/loading.h"

namespace CLI {
class App;
class Validator;
}

namespace engine::cli {

// --input and --inputs, as app/ takes them.
using InputOptions = app::GivenInputs;
void add_input_options(CLI::App& cmd, InputOptions& options);

// A numeric flag's value checked before CLI11 converts it: a whole number (digits only: `-1` is refused, never read
// as 2^64-1) or a finite decimal (`nan` and `inf` refused), from `min` to `max`.
CLI::Validator whole_number(unsigned long long min, unsigned long long max);
CLI::Validator finite_number(double min, double max);

// Runs `body`, turning an Error into "engine: error[kind]: ..." on stderr and exit code 2 (bad input); `no_color`
// is the command's --no-color.
int guarded(const std::function<int()>& body, bool no_color = false);
// "engine: error[kind]: message" on stderr, the label red on a terminal (not with NO_COLOR or --no-color); the kind
// is what docs/errors.md lists, so a user can look it up. Without a kind (a usage mistake): "engine: error: message".
void print_error(ErrorKind kind, const std::string& formatted, bool no_color = false);
void print_error(const std::string& formatted);
// `kind` as written down (a stored run's), the label left without one when it is empty.
void print_error(std::string_view kind, const std::string& formatted, bool no_color);
std::string error_line(std::string_view kind, const std::string& formatted, bool color);

// app::load_executor, then "engine: warning: ..." on stderr for each thing the build could not check (an MCP
// tool's schema the engine cannot validate), masked as errors are.
std::shared_ptr<const workflow::Executor> load_executor(const std::string& path, const app::LoadOptions& options = {});

bool stderr_wants_color(bool no_color_flag);
bool stderr_is_terminal();

}  // namespace engine::cli
