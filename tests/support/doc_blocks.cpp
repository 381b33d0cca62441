#include "support/doc_blocks.h"

#include <sstream>
#include <stdexcept>

#include "support/test_support.h"

namespace engine::test {

std::vector<DocBlock> fenced_blocks(const std::string& markdown) {
  std::vector<DocBlock> blocks;
  std::istringstream in(markdown);
  std::string line;
  int number = 0;
  bool open = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      if (!open) blocks.push_back({line.substr(3), "", number});
      open = !open;
    } else if (open) {
      blocks.back().text += line + "\n";
    }
  }
  if (open) throw std::runtime_error("a fence opened at line " + std::to_string(blocks.back().line) + " is never closed");
  return blocks;
}

std::vector<std::string> commands_of(const std::string& block) {
  std::vector<std::string> commands;
  std::istringstream in(block);
  std::string line, current, heredoc_end;
  while (std::getline(in, line)) {
    current += (current.empty() ? "" : "\n") + line;
    if (!heredoc_end.empty()) {
      if (line == heredoc_end) heredoc_end.clear();
      else continue;
    } else if (size_t at = line.find("<<'"); at != std::string::npos) {
      heredoc_end = line.substr(at + 3, line.find('\'', at + 3) - at - 3);
      continue;
    } else if (!line.empty() && line.back() == '\\') {
      continue;
    }
    commands.push_back(current);
    current.clear();
  }
  return commands;
}

std::string doc_script(const std::vector<DocBlock>& blocks, const std::filesystem::path& scratch, const DocScript& how) {
  std::string script = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\ncd " + shell_quote(scratch.string()) + "\n";
  int outputs = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const DocBlock& b = blocks[i];
    if (size_t at = b.info.find(" file="); at != std::string::npos) {
      std::string file = b.info.substr(at + 6);
      script += "mkdir -p \"$(dirname " + shell_quote(file) + ")\"\nprintf '%s' " + shell_quote(b.text) + " > " +
                shell_quote(file) + "\n";
      continue;
    }
    if (!how.runs(b)) continue;
    script += "echo " + shell_quote("--- the block at line " + std::to_string(b.line)) + "\n";
    std::vector<std::string> commands = commands_of(how.edit ? how.edit(b.text) : b.text);
    bool shown = i + 1 < blocks.size() && blocks[i + 1].info == "output";
    for (size_t c = 0; c < commands.size(); ++c) {
      const std::string& command = commands[c];
      if (shown && c + 1 == commands.size()) {
        std::string expected = (scratch / ("expected." + std::to_string(outputs))).string();
        std::string got = (scratch / ("got." + std::to_string(outputs++))).string();
        script += "printf '%s' " + shell_quote(blocks[i + 1].text) + " > " + shell_quote(expected) + "\n" + command +
                  " > " + shell_quote(got) + "\ndiff -u " + shell_quote(expected) + " " + shell_quote(got) + "\n";
      } else {
        script += command + "\n";
      }
      if (how.after) script += how.after(command);
    }
  }
  return script;
}

}  // namespace engine::test
