// The command line guides: `engine` alone lists the commands, and a mistyped command or flag gets the nearest one.
#include <catch2/catch.hpp>

#include <filesystem>

#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;

TEST_CASE("engine alone lists every command with one line each, and exits 0", "[e2e][cli]") {
  auto r = run_engine("");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.rfind("engine: declarative LLM agents and workflows from YAML\n\nUsage: engine COMMAND [ARGS]...\n\n"
                    "Commands:\n  init        Make a new project: a workflow, a Lua tool, tests that pass offline and a "
                    "README (docs/tutorial.md)\n  run         Run a workflow: the answer goes to stdout, the steps to stderr\n",
                    0) == 0);
  for (const char* command : {"\n  chat ", "\n  validate ", "\n  render ", "\n  parse ", "\n  tools ", "\n  tool ",
                              "\n  batch ", "\n  eval ", "\n  test ", "\n  schema "})
    CHECK(r.out.find(command) != std::string::npos);
  CHECK(r.out.find("`engine COMMAND --help` shows a command's arguments and flags") != std::string::npos);
  // Where the documentation is, there and in --help: the build tree's link to docs/, as an install's share folder.
  std::string docs = std::filesystem::path(ENGINE_BIN).parent_path().string() + "/share/engine/docs";
  std::string named = "The documentation: " + docs + " (tutorial.md first; `man engine` for the commands).\n";
  CHECK(r.out.substr(r.out.size() - named.size()) == named);
  CHECK(std::filesystem::is_regular_file(docs + "/tutorial.md"));
  CHECK(run_engine("--help").out.find(named) != std::string::npos);
}

TEST_CASE("a mistyped command is answered with the nearest one", "[e2e][cli]") {
  auto r = run_engine("runn workflows/calculator.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "engine: error[usage]: unknown command 'runn' (did you mean 'run'?); `engine` alone lists the commands\n");
  auto far = run_engine("deploy workflows/calculator.yaml");
  CHECK(far.exit_code == 2);
  CHECK(far.err == "engine: error[usage]: unknown command 'deploy'; `engine` alone lists the commands\n");
}

TEST_CASE("a mistyped flag is answered with the command's nearest flag", "[e2e][cli]") {
  auto r = run_engine("run workflows/calculator.yaml --inptu '1 + 1'");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[usage]: unknown flag '--inptu' for 'engine run' (did you mean '--input'?); "
                 "`engine run --help` lists its flags\n");
  auto with_value = run_engine("batch workflows/batch_qa.yaml --concurency=3");
  CHECK(with_value.exit_code == 2);
  CHECK(with_value.err == "engine: error[usage]: unknown flag '--concurency' for 'engine batch' (did you mean "
                          "'--concurrency'?); `engine batch --help` lists its flags\n");
  // A value after -- is a value, never a flag.
  auto value = run_engine("render templates/react.j2 -- --not-a-flag");
  CHECK(value.err.find("unknown flag") == std::string::npos);
}

TEST_CASE("a command without its workflow says what to write, with an example", "[e2e][cli]") {
  auto r = run_engine("run");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("engine: error[usage]: engine run needs a workflow: a YAML file, such as `engine run "
                    "workflows/calculator.yaml --input \"What is 12 * 7 + 3?\"`, or the name of an installed example "
                    "(`engine run calculator`).", 0) == 0);
  auto serve = run_engine("serve --port 0");
  CHECK(serve.exit_code == 2);
  CHECK(serve.err.find("engine serve needs a workflow: a YAML file, such as `engine serve workflows/calculator.yaml`") !=
        std::string::npos);
  auto other = run_engine("runs show");  // another argument missing: CLI11's own words
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("id is required") != std::string::npos);
}

TEST_CASE("a mistyped input name is a usage error, not text for the only input", "[e2e][cli]") {
  auto r = run_engine("run workflows/calculator.yaml --input 'inptu=2+2'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "engine: error[input.unknown]: --input 'inptu=2+2': the workflow has no input 'inptu' (did you mean 'input'?); to "
                 "give the whole text to 'input', write --input 'input=inptu=2+2'\n");
  auto twice = run_engine("run workflows/calculator.yaml --input '1+1' --input 'input=2+2'");
  CHECK(twice.exit_code == 2);
  CHECK(twice.err == "engine: error[input.duplicate]: --input 'input=2+2' gives the input 'input' a second time; give each input once\n");
}

TEST_CASE("an input's declared type reads the command line's text, and refuses what is not of it", "[e2e][cli]") {
  test::TempDir dir;
  auto wf = dir.write("count.yaml", "inputs:\n  count:\n    type: integer\n  question: q\nllm:\n  provider: scripted\n"
                                    "  scripted:\n    rules: [{match: '(?P<n>\\d+)', reply: 'Final Answer: {{ n }}'}]\n"
                                    "agent:\n  prompt: '{{ question }} {{ count + 1 }}'\n");
  auto r = run_engine("run " + test::shell_quote(wf.string()) + " -q --input count=41 --input question=q");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "42\n");
  auto wrong = run_engine("run " + test::shell_quote(wf.string()) + " -q --input count=ten --input question=q");
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.out.empty());
  CHECK(wrong.err == "engine: error[input.wrong_type]: input 'count' must be an integer, got a string: 'ten'\n");
}

TEST_CASE("engine schema prints the workflow format's JSON Schema, and the engine loads a file that names it",
          "[e2e][cli]") {
  auto r = run_engine("schema");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == test::run_command("cat schema/workflow.schema.json").out);
  // Both ways of naming it, the YAML language server's comment (every example has one) and a $schema key.
  CHECK(run_engine("validate workflows/calculator.yaml").exit_code == 0);
  test::TempDir dir;
  auto file = dir.write("w.yaml", "$schema: https://example.invalid/workflow.schema.json\nllm: {provider: scripted, "
                                  "scripted: {replies: [\"Final Answer: 2\"]}}\nagent: {}\ninputs: {input: {}}\n");
  auto run = run_engine("run " + test::shell_quote(file.string()) + " --input x");
  CHECK(run.exit_code == 0);
  CHECK(run.out == "2\n");
}
