// The built engine given hostile files and inputs: devices, gigabytes, JSON nested 200,000 deep, files outside the
// workflow's reach. Each ends in one clear error and exit code 2, and no secret reaches any output.
#include <catch2/catch.hpp>

#include <filesystem>

#include "engine/core/file.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

std::string deep_json(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("e2e: devices and huge files as --inputs, --vars or the workflow are clear errors", "[e2e][hostile]") {
  auto r = run_engine("run workflows/calculator.yaml --inputs /dev/zero");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[io.read_failed]: cannot read '/dev/zero': not a regular file (a device or a socket)\n");
  r = run_engine("validate /dev/zero");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[io.read_failed]: /dev/zero: cannot read '/dev/zero': not a regular file (a device or a socket)\n");
  test::TempDir dir;
  auto big = dir.write("big.json", "");
  std::filesystem::resize_file(big, size_t{2} << 30);
  r = run_engine("run workflows/calculator.yaml --inputs " + shell_quote(big.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[io.too_large]: cannot read '" + big.string() +
                     "': it is 2048 MiB, more than the 16 MiB a file may have\n");
  r = run_engine("render templates/react.j2 --vars /dev/urandom");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[io.read_failed]: cannot read '/dev/urandom': not a regular file (a device or a socket)\n");
}

TEST_CASE("e2e: JSON nested 200,000 deep as --inputs or --vars is refused, not a crash", "[e2e][hostile]") {
  test::TempDir dir;
  auto deep = dir.write("deep.json", "{\"input\": " + deep_json(200'000) + "}");
  auto r = run_engine("run workflows/calculator.yaml -q --inputs " + shell_quote(deep.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[input.bad_file]: --inputs " + deep.string() +
                     ": expected a JSON object of inputs (nested deeper than 128 levels)\n");
  auto t = dir.write("t.j2", "{{ x }}");
  r = run_engine("render " + shell_quote(t.string()) + " --vars " + shell_quote(deep.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[input.bad_file]: --vars " + deep.string() + ": expected a JSON object (nested deeper than 128 levels)\n");
  // at the bound it is data like any other
  auto ok = dir.write("ok.json", "{\"x\": " + deep_json(127) + "}");
  r = run_engine("render " + shell_quote(t.string()) + " --vars " + shell_quote(ok.string()));
  CHECK(r.exit_code == 0);
  CHECK(r.out == deep_json(127) + "\n");
}

TEST_CASE("e2e: a workflow naming /proc/self/environ gets an error that quotes none of it", "[e2e][hostile]") {
  test::TempDir dir;
  std::string llm = "inputs: {input: {}}\nllm: {provider: scripted, scripted: {replies: ['Final Answer: x']}}\n";
  auto lua = dir.write("lua.yaml", llm + "tools: [{lua: /proc/self/environ}]\nagent: {}\n");
  auto include = dir.write("inc.yaml", llm + "agent: {prompt: \"{% include '/proc/self/environ' %}{{ input }}\"}\n");
  for (const auto& w : {lua, include}) {
    auto r = run_engine("run " + shell_quote(w.string()) + " --input x", "", "ENGINE_TEST_SECRET=sk-leak-me-please");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("a system folder no workflow may read") != std::string::npos);
    CHECK(r.err.find("sk-leak-me") == std::string::npos);
    CHECK(r.out.empty());
  }
}

TEST_CASE("e2e: ENGINE_PATH adds folders a workflow may name", "[e2e][hostile]") {
  test::TempDir dir;
  dir.write("shared/echo.lua", "return function(input) return 'echo: ' .. input end");
  auto w = dir.write("flows/w.yaml",
                     "inputs: {input: {}}\nllm:\n  provider: scripted\n  scripted:\n    replies:\n"
                     "      - \"Action: echo\\nAction Input: hi\"\n      - 'Final Answer: done'\n"
                     "tools: [{lua: ../shared/echo.lua, name: echo}]\nagent: {}\n");
  auto r = run_engine("validate " + shell_quote(w.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("outside the folders a workflow may read") != std::string::npos);
  r = run_engine("run -q " + shell_quote(w.string()) + " --input x", "",
                 "ENGINE_PATH=" + shell_quote((dir.path() / "shared").string()));
  CHECK(r.err == "");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "done\n");
}

TEST_CASE("e2e: a key interpolated into a workflow or given as input is masked in every output", "[e2e][hostile]") {
  test::TempDir dir;
  const std::string key = "sk-e2e-interpolated-0123456789";
  auto w = dir.write("w.yaml",
                     "inputs: {input: {}}\n"
                     "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
                     "      - {match: '(?s).*Question: (?P<q>[^\\n]*)', reply: 'Final Answer: {{ q }}'}\n"
                     "tools:\n  - {builtin: echo, description: 'echoes ${OPENAI_API_KEY}'}\n"
                     "agent: {}\n");
  auto trace = dir.path() / "trace.jsonl";
  auto r = run_engine("run " + shell_quote(w.string()) + " --json --trace " + shell_quote(trace.string()) +
                          " --input " + shell_quote("the key " + key.substr(0, 20) + " ends"),
                      "", "OPENAI_API_KEY=" + key);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  std::string t = read_file(trace);
  for (const std::string* out : {&r.out, &r.err, &t}) {
    CHECK(out->find(key.substr(0, 8)) == std::string::npos);
    CHECK(out->find(key.substr(10, 8)) == std::string::npos);
  }
  CHECK(Value::parse(r.out)["output"] == "the key *** ends");
  CHECK(t.find("echoes ***") != std::string::npos);  // the prompt in llm_start
  r = run_engine("render " + shell_quote(w.string()) + " --input x", "", "OPENAI_API_KEY=" + key);
  CHECK(r.out.find("echoes ***") != std::string::npos);
  CHECK(r.out.find(key.substr(3, 8)) == std::string::npos);
}

TEST_CASE("e2e: a tool input larger than the tool's Lua memory is an observation, and the run goes on",
          "[e2e][hostile]") {
  // It used to abort the process (an allocation failing outside Lua's protection), ending a whole batch.
  test::TempDir dir;
  dir.write("plugins/size.lua", "return function(input) return #input end");
  auto workflow = dir.write("big.yaml", R"yaml(inputs: {input: {}}
llm:
  provider: scripted
  scripted:
    rules:
      - match: "Observation: tool 'size' failed"
        reply: "Final Answer: the tool could not take it"
      - match: "Question: (?P<q>x+)"
        reply: "Action: size\nAction Input: {{ q }}"
tools:
  - lua: plugins/size.lua
    limits: {memory_mb: 1}
agent: {}
)yaml");
  auto inputs = dir.write("inputs.json", "{\"input\": \"" + std::string(2u << 20, 'x') + "\"}");
  auto r = run_engine("run -q " + shell_quote(workflow.string()) + " --json --inputs " + shell_quote(inputs.string()));
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  Value result = Value::parse(r.out);
  CHECK(result["output"] == "the tool could not take it");
  CHECK(result["intermediate_steps"][0]["observation"] == "tool 'size' failed: memory limit of 1048576 bytes exceeded");
}

TEST_CASE("e2e: an error on a line of megabytes quotes 160 characters of it, not the line", "[e2e][hostile]") {
  test::TempDir dir;
  auto file = dir.write("min.yaml", "version: 1\nname: " + std::string(200'000, '[') + std::string(200'000, ']') + "\n");
  auto r = run_engine("validate " + shell_quote(file.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.size() < 600);
  CHECK(r.err.find("YAML nested too deeply") != std::string::npos);
  // yaml-cpp places it at the line's end: the window is the line's last 160 characters.
  CHECK(r.err.find("\n  ..." + std::string(160, ']') + "\n") != std::string::npos);
  r = run_engine("validate --json " + shell_quote(file.string()));
  Value report = Value::parse(r.out);
  CHECK(report["files"][0]["errors"][0]["source_line"] == "..." + std::string(160, ']'));
}

// A tool's parameters are checked with the same step budget as an evaluator's schema: branching $refs end the call
// with an observation, never a hang.
TEST_CASE("e2e: a tool whose parameters' $refs branch exponentially is refused within the budget", "[e2e][hostile]") {
  test::TempDir dir;
  std::string defs;
  for (int i = 0; i < 40; ++i) {
    std::string next = "'#/definitions/d" + std::to_string(i + 1) + "'";
    defs += "          d" + std::to_string(i) + ": {allOf: [{$ref: " + next + "}, {$ref: " + next + "}]}\n";
  }
  auto w = dir.write("w.yaml", "tools:\n  - builtin: echo\n    parameters:\n      type: object\n"
                               "      properties: {x: {$ref: '#/definitions/d0'}}\n      definitions:\n" +
                                   defs + "          d40: {type: integer}\n"
                               "steps:\n  s: {kind: tool, tool: echo, input: '{\"x\": 7}'}\n");
  auto r = run_engine("tool " + shell_quote(w.string()) + " echo -i '{\"x\": 7}' --json");
  INFO(r.err);
  Value doc = Value::parse(r.out);
  CHECK(doc["ok"] == false);
  CHECK(doc["observation"].get<std::string>().find(
            "tool 'echo' was not run: its arguments do not match its parameters: at the top: could not be checked: "
            "the schema takes more than ") != std::string::npos);
}

// Sorting a batch's results and --retry-failed replace the file by renaming a new one over it: a symlink planted
// where that new file once went (PATH.new) must not receive the lines.
TEST_CASE("e2e: a symlink planted beside a batch's results redirects none of its rewrites", "[e2e][hostile]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs:\n  q: q\nsteps:\n  s: {kind: template, template: 'A {{ inputs.q }}'}\n");
  auto data = dir.write("d.jsonl", "{\"q\": \"a\"}\n{\"q\": \"b\"}\n{\"q\": \"c\"}\n");
  auto out = dir.path() / "out.jsonl";
  auto victim = dir.write("victim.txt", "precious\n");
  std::filesystem::create_symlink(victim, dir.path() / "out.jsonl.new");
  std::string args = "batch " + shell_quote(w.string()) + " --data " + shell_quote(data.string()) + " --out " +
                     shell_quote(out.string()) + " --concurrency 3";
  auto r = run_engine(args);
  CHECK(r.exit_code == 0);
  r = run_engine(args + " --retry-failed");
  CHECK(r.exit_code == 0);
  CHECK(read_file(victim) == "precious\n");
  CHECK(read_file(out).find("\"output\":\"A c\"") != std::string::npos);
}

TEST_CASE("e2e: a workflow's own key variable is masked by tool, chat and batch outputs alike", "[e2e][hostile]") {
  test::TempDir dir;
  const std::string key = "own-key-variable-0123456789abc";
  auto w = dir.write("w.yaml",
                     "inputs: {input: {}}\n"
                     "llm:\n  provider: scripted\n  api_key_env: MY_WORKFLOW_KEY\n  scripted:\n    rules:\n"
                     "      - {match: '(?s).*Question: (?P<q>[^\\n]*)', reply: 'Final Answer: got {{ q }}'}\n"
                     "tools:\n  - {builtin: echo}\n"
                     "agent: {}\n");
  std::string env = "MY_WORKFLOW_KEY=" + key;
  auto tool = run_engine("tool " + shell_quote(w.string()) + " echo --input " + shell_quote("say " + key), "", env);
  CHECK(tool.exit_code == 0);
  CHECK(tool.out == "say ***\n");
  auto chat = run_engine("chat " + shell_quote(w.string()) + " --no-color", "the key " + key + "\n/exit\n", env);
  CHECK(chat.exit_code == 0);
  CHECK(chat.out == "got the key ***\n");
  CHECK_FALSE(test::holds_piece_of_key(chat.err, key));
  auto data = dir.write("rows.jsonl", "{\"input\": \"row " + key + "\"}\n");
  auto trace = dir.path() / "batch.jsonl";
  auto batch = run_engine("batch " + shell_quote(w.string()) + " --data " + shell_quote(data.string()) + " --out " +
                              shell_quote((dir.path() / "out.jsonl").string()) + " --trace " + shell_quote(trace.string()),
                          "", env);
  CHECK(batch.exit_code == 0);
  std::string t = read_file(trace);
  CHECK(t.find("got row ***") != std::string::npos);
  for (const std::string* out : {&tool.err, &batch.out, &batch.err, &t}) CHECK_FALSE(test::holds_piece_of_key(*out, key));
}
