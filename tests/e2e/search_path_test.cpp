// The search path as a user meets it: a bare name on the command line runs a shipped example, a bare `lua:` name
// finds a shipped or ENGINE_PATH plugin, and what is found nowhere is reported with every place looked in.
#include <catch2/catch.hpp>

#include <filesystem>

#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;
namespace fs = std::filesystem;

namespace {

// Where the built engine finds its shipped files: build/share/engine/..., links to the source folders.
fs::path shipped(const std::string& sub) { return fs::path(ENGINE_BIN).parent_path() / "share/engine" / sub; }

// A workflow whose scripted model calls `calculator` on "6 * 7" and answers with what it returned.
std::string calculator_caller(const std::string& lua) {
  return "inputs: {input: {}}\n"
         "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
         "      - {match: '(?s)Observation: (?P<r>[^\\n]*)\\nThought: $', reply: 'Final Answer: {{ r }}'}\n"
         "      - {match: '(?s).*', reply: \"Action: calculator\\nAction Input: 6 * 7\"}\n"
         "tools:\n  - lua: " + lua + "\n"
         "agent: {}\n";
}

}  // namespace

TEST_CASE("a bare workflow name runs the shipped example, and a name found nowhere lists where it looked",
          "[e2e][search_path]") {
  test::TempDir elsewhere;  // not the source folder: nothing named calculator here
  auto r = test::run_command("cd " + shell_quote(elsewhere.path().string()) + " && " + shell_quote(ENGINE_BIN) +
                             " run calculator -q --input 'What is 6 * 7?'");
  CHECK(r.err == "");
  CHECK(r.out == "42\n");
  auto typo = test::run_command("cd " + shell_quote(elsewhere.path().string()) + " && " + shell_quote(ENGINE_BIN) +
                                " validate calculatr");
  CHECK(typo.exit_code == 2);
  CHECK(typo.out == "");
  CHECK(typo.err == "engine: error[io.not_found]: workflow 'calculatr' not found in . or " +
                        shipped("workflows").string() +
                        " (as calculatr, calculatr.yaml or calculatr.yml) (did you mean 'calculator'?)\n");
}

TEST_CASE("a bare lua name finds a shipped plugin, and an ENGINE_PATH folder comes before the shipped ones",
          "[e2e][search_path]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", calculator_caller("calculator.lua"));
  auto shipped_run = run_engine("run " + shell_quote(w.string()) + " -q --input go");
  CHECK(shipped_run.err == "");
  CHECK(shipped_run.out == "42\n");
  test::TempDir mine;
  mine.write("calculator.lua", "return function(input) return 'mine: ' .. input end\n");
  auto own = run_engine("run " + shell_quote(w.string()) + " -q --input go", "",
                        "ENGINE_PATH=" + shell_quote("/nonexistent:" + mine.path().string()));
  CHECK(own.err == "");
  CHECK(own.out == "mine: 6 * 7\n");
}

TEST_CASE("a bare lua name found nowhere names the workflow's folder and every search folder",
          "[e2e][search_path]") {
  test::TempDir dir, mine;
  auto w = dir.write("w.yaml", calculator_caller("calculater.lua"));
  auto r = run_engine("validate " + shell_quote(w.string()), "", "ENGINE_PATH=" + shell_quote(mine.path().string()));
  CHECK(r.exit_code == 2);
  std::string folder = fs::canonical(dir.path()).string(), path = fs::canonical(mine.path()).string();
  CHECK(r.err.find("tools[0].lua: 'calculater.lua' not found in " + folder + ", " + path + ", " +
                   fs::canonical(shipped("plugins")).string() + " or " +
                   fs::canonical(shipped("templates")).string() + "; put the folder that holds it on ENGINE_PATH") !=
        std::string::npos);
}
