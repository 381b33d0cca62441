#include "engine/cli/cli_support.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <new>

#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::cli {

void add_input_options(CLI::App& cmd, InputOptions& o) {
  cmd.add_option("-i,--input", o.pairs, "An input: key=value, or a bare value for the workflow's single input");
  cmd.add_option("--inputs", o.file, "A JSON file with an object of inputs");
}

CLI::Validator whole_number(unsigned long long min, unsigned long long max) {
  std::string range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        unsigned long long v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        bool whole = !text.empty() && ec == std::errc() && end == text.data() + text.size();
        if (whole && v >= min && v <= max) return "";
        return "expected a whole number from " + range + ", got '" + text + "'";
      },
      "INT in [" + range + "]");
}

CLI::Validator finite_number(double min, double max) {
  char range[64];
  std::snprintf(range, sizeof range, "%g to %g", min, max);
  return CLI::Validator(
      [min, max, range = std::string(range)](std::string& text) -> std::string {
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        bool number = !text.empty() && ec == std::errc() && end == text.data() + text.size() && std::isfinite(v);
        if (number && v >= min && v <= max) return "";
        return "expected a number from " + range + ", got '" + text + "'";
      },
      "NUMBER in [" + std::string(range) + "]");
}


std::string error_line(std::string_view kind, const std::string& formatted, bool color) {
  std::string label = kind.empty() ? "error" : "error[" + std::string(kind) + "]";
  if (color) label = "\033[1;31m" + label + "\033[0m";
  return "engine: " + label + ": " + formatted;
}

void print_error(std::string_view kind, const std::string& formatted, bool no_color) {
  std::cerr << error_line(kind, terminal_safe(formatted), stderr_wants_color(no_color)) << std::endl;
}

void print_error(ErrorKind kind, const std::string& formatted, bool no_color) {
  print_error(name_of(kind), formatted, no_color);
}

void print_error(const std::string& formatted) { print_error(std::string_view(), formatted, false); }

std::shared_ptr<const workflow::Executor> load_executor(const std::string& path, const app::LoadOptions& given) {
  app::LoadOptions options = given;
  if (!options.secrets) options.secrets = console_secrets();
  auto executor = app::load_executor(path, options);
  for (const auto& w : executor->warnings()) std::cerr << "engine: warning: " << terminal_safe(w) << std::endl;
  return executor;
}

int guarded(const std::function<int()>& body, bool no_color) {
  try {
    return body();
  } catch (const Error& e) {
    print_error(e.kind(), e.formatted(), no_color);
    // Running out of memory, or a collector that took nothing, is no mistake in the input: the command failed.
    return e.kind() == ErrorKind::EngineOutOfMemory || e.kind() == ErrorKind::OtlpNotSent ? kRunFailed : kBadInput;
  } catch (const std::bad_alloc&) {
    print_error(ErrorKind::EngineOutOfMemory, "out of memory: a limit is set higher than this machine can hold", no_color);
  } catch (const std::exception& e) {
    print_error(ErrorKind::EngineInternal, std::string("internal error: ") + e.what(), no_color);
  }
  return kRunFailed;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO); }

bool stderr_wants_color(bool no_color_flag) {
  if (no_color_flag) return false;
  const char* nc = std::getenv("NO_COLOR");
  if (nc && *nc) return false;
  return stderr_is_terminal();
}

}  // namespace engine::cli
