#include "engine/cli/line_reader.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace engine::cli {

LineReader::LineReader() : interactive_(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
  if (interactive_) using_history();
}

bool LineReader::next(std::string& line) {
  if (!interactive_) {
    if (!std::getline(std::cin, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  std::unique_ptr<char, decltype(&std::free)> read(readline("> "), &std::free);
  if (!read) return false;
  line = read.get();
  if (!line.empty()) add_history(read.get());
  return true;
}

}  // namespace engine::cli
