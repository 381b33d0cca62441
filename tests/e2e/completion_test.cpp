// The completion scripts run in the shells they are for, and the manual page through groff: what each completes
// and says comes from the engine's own commands.
#include <catch2/catch.hpp>

#include "support/test_support.h"

using namespace engine;
using engine::test::run_command;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// The script for `shell`, saved in `dir`.
std::string saved_script(const test::TempDir& dir, const std::string& shell) {
  auto r = run_engine("completion " + shell);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  return dir.write("engine." + shell, r.out).string();
}

// What bash's completion offers for the words of a command line (the last one being completed).
std::string bash_completes(const std::string& script, const std::string& words, const std::string& env = "") {
  std::string harness = "source " + shell_quote(script) + "; COMP_WORDS=(" + words +
                        "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _engine_complete; "
                        "printf '%s\\n' \"${COMPREPLY[@]}\" | sort | paste -sd' '";
  auto r = run_command(env + " bash -c " + shell_quote(harness));
  REQUIRE(r.err == "");
  return r.out.substr(0, r.out.find('\n'));
}

// What fish completes for a command line (its own `complete -C`): the candidates, without descriptions.
std::string fish_completes(const std::string& script, const std::string& line) {
  auto r = run_command("fish -c " + shell_quote("source " + shell_quote(script) + "; complete -C " + shell_quote(line) +
                                                " | cut -f1 | sort | paste -sd' '"));
  REQUIRE(r.err == "");
  return r.out.substr(0, r.out.find('\n'));
}

}  // namespace

TEST_CASE("bash completes commands, subcommands, flags, workflow files and flag values", "[e2e][cli]") {
  test::TempDir dir;
  std::string script = saved_script(dir, "bash");
  CHECK(run_command("bash -n " + shell_quote(script)).exit_code == 0);
  CHECK(bash_completes(script, "engine ru") == "run runs");
  CHECK(bash_completes(script, "engine runs s") == "show");
  CHECK(bash_completes(script, "engine t") == "test tool tools");
  CHECK(bash_completes(script, "engine run --in") == "--input --inputs");
  CHECK(bash_completes(script, "engine batch m") == "merge");
  CHECK(bash_completes(script, "engine batch merge --o") == "--out");
  CHECK(bash_completes(script, "engine completion z") == "zsh");
  // Workflows are YAML files (and the folders that hold them); a flag's value is any file.
  CHECK(bash_completes(script, "engine run workflows/calc") ==
        "workflows/calculator.test.yaml workflows/calculator.yaml workflows/calculator_tools.yaml");
  CHECK(bash_completes(script, "engine run workflows/da") == "workflows/data");
  CHECK(bash_completes(script, "engine run w.yaml --inputs workflows/data/q") == "workflows/data/questions.jsonl");
  // --llm: the providers, the model left to type.
  CHECK(bash_completes(script, "engine run w.yaml --llm ''") == "anthropic: llamacpp: ollama: openai: replay:");
  CHECK(bash_completes(script, "engine batch w.yaml --llm o") == "ollama: openai:");
  // A flag of a fixed set of values offers them.
  CHECK(bash_completes(script, "engine init app --kind t") == "tool_calling");
  CHECK(bash_completes(script, "engine init app --kind ''") == "chat react tool_calling workflow");
  // The installed workflows by name, as the engine typed finds them (the build's examples, and ENGINE_PATH's).
  std::string engine = shell_quote(ENGINE_BIN);
  CHECK(bash_completes(script, engine + " run calc") == "calculator calculator_tools");
  dir.write("mine/my_agent.yaml", "version: 1\n");
  dir.write("mine/my_agent.test.yaml", "version: 1\n");
  CHECK(bash_completes(script, engine + " test my", "ENGINE_PATH=" + shell_quote((dir.path() / "mine").string())) == "my_agent");
}

TEST_CASE("fish completes commands with their descriptions, flags and workflow files", "[e2e][cli]") {
  test::TempDir dir;
  std::string script = saved_script(dir, "fish");
  CHECK(run_command("fish -n " + shell_quote(script)).exit_code == 0);
  CHECK(fish_completes(script, "engine ru") == "run runs");
  auto described = run_command("fish -c " + shell_quote("source " + shell_quote(script) + "; complete -C 'engine ru'"));
  CHECK(described.out == "run\tRun a workflow: the answer goes to stdout, the steps to stderr\n"
                         "runs\tThe runs recorded in the local run store: list, show, compare, export, prune\n");
  CHECK(fish_completes(script, "engine run --in") == "--input --inputs");
  CHECK(fish_completes(script, "engine batch m") == "merge");
  CHECK(fish_completes(script, "engine completion ") == "bash fish workflows zsh");
  CHECK(fish_completes(script, "engine run workflows/calc") ==
        "workflows/calculator.test.yaml workflows/calculator.yaml workflows/calculator_tools.yaml");
  CHECK(fish_completes(script, "engine run workflows/da") == "workflows/data/");
  CHECK(fish_completes(script, "engine run w.yaml --inputs workflows/data/q") == "workflows/data/questions.jsonl");
  CHECK(fish_completes(script, "engine run w.yaml --llm o") == "ollama: openai:");
  CHECK(fish_completes(script, "engine init app --kind ") == "chat react tool_calling workflow");
  CHECK(fish_completes(script, std::string(ENGINE_BIN) + " run calc") == "calculator calculator_tools");
}

TEST_CASE("zsh's completion offers each command's commands, flags and arguments", "[e2e][cli]") {
  test::TempDir dir;
  std::string script = saved_script(dir, "zsh");
  CHECK(run_command("zsh -n " + shell_quote(script)).exit_code == 0);
  // zsh's completion widgets need a terminal; the functions the script calls are stood in for, to see what it asks.
  std::string harness = dir.write("harness.zsh", "_describe() { local arr=$4; print -r -- \"$3: ${(j:|:)${(@P)arr}}\"; }\n"
                                                 "_files() { print -r -- \"files $*\"; }\n"
                                                 "compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done; "
                                                 "[[ $1 == -- ]] && shift; print -r -- \"words $*\"; }\n"
                                                 "words=(\"$@\"); CURRENT=${#words}; source " + shell_quote(script) + "\n").string();
  auto zsh = [&](const std::string& words) { return run_command("zsh " + shell_quote(harness) + " " + words).out; };
  std::string top = zsh("engine ''");
  CHECK(top.rfind("command: init:Make a new project\\: a workflow, a Lua tool, tests that pass offline and a README "
                  "(docs/tutorial.md)|run:Run a workflow\\: the answer goes to stdout, the steps to stderr|chat:", 0) == 0);
  CHECK(top.find("|schema:") != std::string::npos);
  CHECK(zsh("engine run --in").find("flag: --help:") == 0);
  CHECK(zsh("engine run --in").find("|--inputs:A JSON file with an object of inputs|") != std::string::npos);
  CHECK(zsh("engine run ''") == "files -g *.(yaml|yml)\nwords \n");
  std::string named = zsh(shell_quote(ENGINE_BIN) + " run ''");
  CHECK(named.find("words ") != std::string::npos);
  CHECK(named.find(" calculator calculator_tools ") != std::string::npos);
  CHECK(zsh("engine run w.yaml --trace ''") == "files \n");
  CHECK(zsh("engine batch ''").rfind("command: merge:Combine the results files of a batch's shards in the data's order, "
                                     "reporting missing and duplicate rows\nfiles -g *.(yaml|yml)\n", 0) == 0);
  CHECK(zsh("engine completion ''") == "words bash zsh fish workflows\n");
  CHECK(zsh("engine run w.yaml --llm ''") == "words openai: ollama: llamacpp: anthropic: replay:\n");
  CHECK(zsh("engine init app --kind ''") == "words react tool_calling chat workflow\n");
}

TEST_CASE("the manual page lists every command and flag and reads cleanly in groff", "[e2e][cli]") {
  auto r = run_engine("man");
  REQUIRE(r.exit_code == 0);
  test::TempDir dir;
  auto page = dir.write("engine.1", r.out);
  auto groff = run_command("groff -man -Tutf8 -ww -z " + shell_quote(page.string()));
  CHECK(groff.err == "");  // no warnings
  CHECK(r.out.rfind(".TH ENGINE 1 \"\" \"engine 0.1.0\" \"User Commands\"\n", 0) == 0);
  for (const char* heading : {".SS \"engine run WORKFLOW\"", ".SS \"engine batch merge FILES...\"",
                              ".SS \"engine test [FILES...]\"", ".SS \"engine completion SHELL\"", ".SS \"engine schema [FORMAT]\""})
    CHECK(r.out.find(heading) != std::string::npos);
  CHECK(r.out.find(".BI \"\\-\\-input \" TEXT\nAn input: key=value, or a bare value for the workflow's single input\n") !=
        std::string::npos);
  // Values in plain words, their bounds said after the description, never CLI11's type strings.
  CHECK(r.out.find(".BI \"\\-\\-runs \" N\nRuns at once (1 to 100000)\n") != std::string::npos);
  CHECK(r.out.find("UINT") == std::string::npos);
  CHECK(r.out.find(".TP\n.I share/engine/docs\nthe documentation, in Markdown") != std::string::npos);
  CHECK(r.out.find("FLOAT") == std::string::npos);
  CHECK(r.out.find(":NUMBER") == std::string::npos);
  auto text = run_command("groff -man -Tutf8 -P-cbou " + shell_quote(page.string()));
  CHECK(text.out.find("EXIT STATUS") != std::string::npos);
}
