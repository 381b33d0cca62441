// engine init: each kind of starter project validates, passes its own tests offline at once, answers as its README
// says, and a second init over it writes nothing.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "support/test_support.h"

using namespace engine;
using engine::test::run_command;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// The built engine run with `args` from `folder`.
test::CommandResult engine_in(const std::filesystem::path& folder, const std::string& args) {
  return run_command("cd " + shell_quote(folder.string()) + " && " + shell_quote(ENGINE_BIN) + " " + args);
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("init: every kind of project validates and passes its own tests at once", "[e2e][cli]") {
  struct Kind {
    std::string name, run, answer;
  };
  const Kind kinds[] = {
      {"react", "run workflow.yaml -q --input 'How many words are in \"the quick brown fox\"?'", "There are 4 words.\n"},
      {"tool_calling", "run workflow.yaml -q --input 'to be or not to be, that is the question'", "There are 10 words.\n"},
      {"chat", "run workflow.yaml -q --input 'count \"one two three\" please'", "That text has 3 words.\n"},
      {"workflow", "run workflow.yaml -q --input text='One two three. Four five.'",
       "The engine runs YAML-defined agents, offline or on real models. (5 words)\n"},
  };
  for (const Kind& kind : kinds) {
    SECTION(kind.name) {
      test::TempDir dir;
      auto made = run_engine("init " + shell_quote((dir.path() / "My Project").string()) + " --kind " + kind.name);
      REQUIRE(made.exit_code == 0);
      CHECK(made.err.empty());
      CHECK(made.out.find("created ") != std::string::npos);
      CHECK(made.out.find("engine test\n") != std::string::npos);
      std::filesystem::path project = dir.path() / "My Project";
      for (const char* file : {"workflow.yaml", "workflow.test.yaml", "README.md", "plugins/word_count.lua"})
        CHECK(std::filesystem::is_regular_file(project / file));
      std::string workflow = file_text(project / "workflow.yaml");
      CHECK(workflow.rfind("# yaml-language-server: $schema=/", 0) == 0);
      std::string schema = workflow.substr(32, workflow.find('\n') - 32);
      CHECK(std::filesystem::is_regular_file(schema));
      CHECK(workflow.find("\nname: my_project\n") != std::string::npos);
      // No scripted reply reads the rendered prompt: replies in order, or rules on the last message.
      CHECK(workflow.find("match:") == std::string::npos);

      auto valid = engine_in(project, "validate workflow.yaml");
      CHECK(valid.exit_code == 0);
      CHECK(valid.err == "");
      auto tested = engine_in(project, "test");
      CHECK(tested.exit_code == 0);
      CHECK(tested.out.find(" 0 failed") != std::string::npos);
      CHECK(tested.out.find("FAIL") == std::string::npos);
      auto ran = engine_in(project, kind.run);
      CHECK(ran.out == kind.answer);
      CHECK(ran.exit_code == 0);
      // The command the Lua tool's comment suggests works as written.
      std::string tool = file_text(project / "plugins/word_count.lua");
      size_t suggested = tool.find("try it alone with: engine ");
      REQUIRE(suggested != std::string::npos);
      size_t from = suggested + std::string("try it alone with: engine ").size();
      auto tried = engine_in(project, tool.substr(from, tool.find('\n', from) - from));
      CHECK(tried.out == "2\n");
      CHECK(tried.exit_code == 0);
    }
  }
}

TEST_CASE("init: a chat project remembers the conversation in engine chat", "[e2e][cli]") {
  test::TempDir dir;
  REQUIRE(run_engine("init " + shell_quote(dir.path().string()) + " --kind chat").exit_code == 0);
  std::string chat_line = "cd " + shell_quote(dir.path().string()) + " && printf 'hello\\ncount \"a b c d e\"\\n' | " +
                          shell_quote(ENGINE_BIN) + " chat workflow.yaml";
  auto chat = run_command("sh -c " + shell_quote(chat_line));
  CHECK(chat.exit_code == 0);
  CHECK(chat.out == "Hello! Give me a text in double quotes and I will count its words.\nThat text has 5 words.\n");
}

TEST_CASE("init: never overwrites a file and writes nothing when one is in the way", "[e2e][cli]") {
  test::TempDir dir;
  dir.write("proj/README.md", "mine\n");
  auto refused = run_engine("init " + shell_quote((dir.path() / "proj").string()));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("error[io.exists]: '" + (dir.path() / "proj/README.md").string() +
                         "' exists; engine init never overwrites a file: give a new or empty folder") != std::string::npos);
  CHECK(file_text(dir.path() / "proj/README.md") == "mine\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "proj/workflow.yaml"));

  // A link in the way, even one pointing nowhere, is not followed.
  std::filesystem::create_directories(dir.path() / "linked");
  std::filesystem::create_symlink(dir.path() / "elsewhere.yaml", dir.path() / "linked/workflow.yaml");
  CHECK(run_engine("init " + shell_quote((dir.path() / "linked").string())).exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "elsewhere.yaml"));

  // Made once, a second init over it refuses and names every file.
  REQUIRE(run_engine("init " + shell_quote((dir.path() / "proj2").string()) + " --kind workflow").exit_code == 0);
  auto again = run_engine("init " + shell_quote((dir.path() / "proj2").string()) + " --kind workflow");
  CHECK(again.exit_code == 2);
  CHECK(again.err.find("these files exist: ") != std::string::npos);
  CHECK(again.err.find("workflow.test.yaml") != std::string::npos);
}

TEST_CASE("init: an unknown kind is a usage error naming the kinds", "[e2e][cli]") {
  test::TempDir dir;
  auto r = run_engine("init " + shell_quote(dir.path().string()) + " --kind agent");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("react") != std::string::npos);
  CHECK(std::filesystem::is_empty(dir.path()));
}
