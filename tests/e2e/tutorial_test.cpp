// docs/tutorial.md never rots: its commands run here, in order, in a scratch folder with the built engine on PATH,
// its files are written as it shows them, and each output it shows is what the command before printed. The engine's
// own OpenAI-compatible mock stands in for the real model (on a free port instead of the tutorial's 8080).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "engine/core/file.h"
#include "support/doc_blocks.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_command;
using engine::test::shell_quote;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("tutorial: every command of docs/tutorial.md runs and prints what it shows", "[e2e][docs]") {
  std::vector<test::DocBlock> blocks = test::fenced_blocks(read_file(test::source_path("docs/tutorial.md")));
  REQUIRE(blocks.size() > 10);
  int port = test::free_port();
  // The tutorial's server is on 8080; here on a free port, waited for as a reader would before the next command.
  test::DocScript how{
      .runs = [](const test::DocBlock& b) { return b.info == "sh"; },
      .edit = [port](std::string text) { return replaced(std::move(text), "8080", std::to_string(port)); },
      .after =
          [port](const std::string& command) -> std::string {
            if (command.rfind("engine serve", 0) != 0 || command.back() != '&') return "";
            return "for i in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) +
                   ") 2>/dev/null && break; sleep 0.1; done\n";
          }};

  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "bin");
  std::filesystem::create_symlink(ENGINE_BIN, dir.path() / "bin/engine");
  std::filesystem::create_directories(dir.path() / "work");
  std::string script = dir.write("tutorial.sh", test::doc_script(blocks, dir.path() / "work", how)).string();
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
