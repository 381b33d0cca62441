#pragma once
// What several commands share: the --input options, reporting errors, whether stderr is a terminal.
#include <functional>
#include <string>
#include <vector>

#include "engine/app/inputs.h"

namespace CLI {
class App;
}

namespace engine::cli {

// --input and --inputs, as app/ takes them.
using InputOptions = app::GivenInputs;
void add_input_options(CLI::App& cmd, InputOptions& options);

// Runs `body`, turning an Error into "engine: error[kind]: ..." on stderr and exit code 2 (bad input); `no_color`
// is the command's --no-color.
int guarded(const std::function<int()>& body, bool no_color = false);
// "engine: error[kind]: message" on stderr, the label red on a terminal (not with NO_COLOR or --no-color); the kind
// is what docs/errors.md lists, so a user can look it up. Without a kind (a usage mistake): "engine: error: message".
void print_error(const std::string& kind, const std::string& formatted, bool no_color = false);
void print_error(const std::string& formatted);
std::string error_line(const std::string& kind, const std::string& formatted, bool color);
// `text` with the values of OPENAI_API_KEY and ANTHROPIC_API_KEY (and their pieces) masked.
std::string redact_environment_keys(const std::string& text);

bool stderr_wants_color(bool no_color_flag);
bool stderr_is_terminal();

}  // namespace engine::cli
