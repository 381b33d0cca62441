// docs/tutorial.md never rots: its commands run here, in order, in a scratch folder with the built engine on PATH,
// its files are written as it shows them, and each output it shows is what the command before printed. The engine's
// own OpenAI-compatible mock stands in for the real model (on a free port instead of the tutorial's 8080).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "support/test_support.h"

using namespace engine;
using engine::test::run_command;
using engine::test::shell_quote;

namespace {

struct Block {
  std::string info;  // the fence's info string: "sh", "output", "yaml file=workflow.yaml", ...
  std::string text;
};

std::vector<Block> fenced_blocks(const std::string& markdown) {
  std::vector<Block> blocks;
  std::istringstream in(markdown);
  std::string line;
  Block* open = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      if (open) {
        open = nullptr;
      } else {
        blocks.push_back({line.substr(3), ""});
        open = &blocks.back();
      }
    } else if (open) {
      open->text += line + "\n";
    }
  }
  REQUIRE(open == nullptr);
  return blocks;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// The commands of a `sh` block as lines, a here-document or a line ending in `\` kept with what it continues.
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

// One bash script doing what the tutorial says: files written, commands run (stopping at the first that fails),
// each shown output compared with what its command printed.
std::string tutorial_script(const std::vector<Block>& blocks, const std::filesystem::path& scratch, int port) {
  std::string script = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\ncd " + shell_quote(scratch.string()) + "\n";
  int outputs = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (size_t at = b.info.find(" file="); at != std::string::npos) {
      std::string file = b.info.substr(at + 6);
      script += "mkdir -p \"$(dirname " + shell_quote(file) + ")\"\nprintf '%s' " + shell_quote(b.text) + " > " +
                shell_quote(file) + "\n";
      continue;
    }
    if (b.info != "sh") continue;
    std::vector<std::string> commands = commands_of(replaced(b.text, "8080", std::to_string(port)));
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
      // A server started in the background is waited for, as a reader would before the next command.
      if (command.rfind("engine serve", 0) == 0 && command.back() == '&')
        script += "for i in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) +
                  ") 2>/dev/null && break; sleep 0.1; done\n";
    }
  }
  return script;
}

}  // namespace

TEST_CASE("tutorial: every command of docs/tutorial.md runs and prints what it shows", "[e2e][docs]") {
  std::ifstream in(test::source_path("docs/tutorial.md"));
  std::stringstream markdown;
  markdown << in.rdbuf();
  std::vector<Block> blocks = fenced_blocks(markdown.str());
  REQUIRE(blocks.size() > 10);

  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "bin");
  std::filesystem::create_symlink(ENGINE_BIN, dir.path() / "bin/engine");
  std::filesystem::create_directories(dir.path() / "work");
  std::string script = dir.write("tutorial.sh", tutorial_script(blocks, dir.path() / "work", test::free_port())).string();
  auto r = run_command("env -u OPENAI_BASE_URL -u OPENAI_API_KEY PATH=" + shell_quote((dir.path() / "bin").string()) +
                       ":\"$PATH\" bash " + shell_quote(script) + " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  // The files the tutorial's last steps make are there, and its batch wrote a line per question.
  CHECK(std::filesystem::is_regular_file(dir.path() / "work/words/fox.jsonl"));
  std::ifstream results(dir.path() / "work/words/results.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(results, line)) ++lines;
  CHECK(lines == 3);
}
