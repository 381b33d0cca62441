// A secret given to any workflow a run reaches never leaves the process: a sub-workflow's MCP key, quoted back by
// its server, through `engine run` and `engine serve`, as a step and as a tool; an MCP server that quotes its key
// on stderr as it dies while the workflow loads; a ${VAR} in a description listed by /v1/workflows, /mcp and
// `engine mcp`.
#include <signal.h>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const std::string kSubKey = "sub-secret-0123456789abcdef";

std::string key_env() { return "TEST_SUB_KEY=" + kSubKey; }

// A tool-calling agent whose MCP server is given the key and quotes it back in its tool's error; the agent answers
// with what the tool said.
std::string child_workflow(const std::string& mode = "good") {
  return "version: 1\nname: child\ndescription: \"Holds ${TEST_SUB_KEY}\"\n"
         "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
         "      - {user: '.', tool_calls: [{name: leak, arguments: '{}'}]}\n"
         "      - {tool: '(?P<said>.+)', reply: 'the tool said {{ said }}'}\n"
         "inputs:\n  input: {description: \"What to ask (not ${TEST_SUB_KEY})\"}\n"
         "agent: {kind: tool_calling}\n"
         "tools:\n  - mcp:\n      command: node\n      args: [" +
         test::source_path("tests/tools/mcp/fake_server.mjs") + ", " + mode +
         "]\n      env: {SECRET_KEY: \"${TEST_SUB_KEY}\"}\n    tools: [leak]\n";
}

// The child as a step of a workflow that has no secret of its own.
const char* const kStepParent = R"(version: 1
name: step_parent
inputs: {input: {}}
steps:
  ask: {kind: workflow, workflow: child.yaml, inputs: {input: '{{ inputs.input }}'}}
outputs:
  answer: {value: '{{ steps.ask.output }}'}
)";

// The child as a tool of an agent that answers with the tool's result.
const char* const kToolParent = R"(version: 1
name: tool_parent
llm:
  provider: scripted
  scripted:
    rules:
      - {user: '.', tool_calls: [{name: child, arguments: '{"input": "go"}'}]}
      - {tool: '(?P<said>.+)', reply: 'the child said {{ said }}'}
inputs: {input: {}}
agent: {kind: tool_calling}
tools:
  - workflow: child.yaml
)";

// The key, whole or in part, must show nowhere; `***` shows where it was.
void check_masked(const std::string& shown) {
  INFO(shown);
  CHECK_FALSE(test::holds_piece_of_key(shown, kSubKey));
  CHECK(shown.find("refused key ***") != std::string::npos);
}

}  // namespace

TEST_CASE("secrets e2e: a sub-workflow's MCP key quoted by its server is masked when a parent runs it",
          "[e2e][secrets][mcp]") {
  test::TempDir dir;
  dir.write("child.yaml", child_workflow());
  auto step_parent = dir.write("step_parent.yaml", kStepParent);
  auto tool_parent = dir.write("tool_parent.yaml", kToolParent);
  auto alone = test::run_engine("run " + test::shell_quote((dir.path() / "child.yaml").string()) + " --input hi", "",
                                key_env());
  CHECK(alone.exit_code == 0);
  check_masked(alone.out + alone.err);
  for (const auto& parent : {step_parent, tool_parent}) {
    INFO(parent.filename().string());
    auto r = test::run_engine("run " + test::shell_quote(parent.string()) + " --input hi --json", "", key_env());
    CHECK(r.exit_code == 0);
    check_masked(r.out + r.err);
    Value doc = parse_json(r.out);
    REQUIRE(doc.is_object());
    std::string answer = doc["output"].get<std::string>();
    CHECK(answer.find("refused key ***") != std::string::npos);
  }
}

TEST_CASE("secrets e2e: engine serve masks a sub-workflow's key in answers, streams and its listing",
          "[e2e][secrets][serve][mcp]") {
  test::TempDir dir;
  dir.write("child.yaml", child_workflow());
  dir.write("step_parent.yaml", kStepParent);
  dir.write("tool_parent.yaml", kToolParent);
  int port = test::free_port();
  test::EngineProcess served("serve " + test::shell_quote(dir.path().string()) + " --port " + std::to_string(port) +
                                 " --no-store",
                             key_env());
  REQUIRE(test::wait_until_listening(port));
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);
  for (const std::string name : {"step_parent", "tool_parent"}) {
    INFO(name);
    auto invoked = client.Post("/v1/workflows/" + name + "/invoke", R"({"input": "hi"})", "application/json");
    REQUIRE(invoked);
    CHECK(invoked->status == 200);
    check_masked(invoked->body);
    auto streamed = client.Post("/v1/workflows/" + name + "/stream", R"({"input": "hi"})", "application/json");
    REQUIRE(streamed);
    CHECK(streamed->status == 200);
    check_masked(streamed->body);
  }
  auto listed = client.Get("/v1/workflows");
  REQUIRE(listed);
  INFO(listed->body);
  CHECK_FALSE(test::holds_piece_of_key(listed->body, kSubKey));
  Value data = parse_json(listed->body)["data"];
  REQUIRE(data.is_array());
  bool seen_child = false;
  for (const Value& w : data) {
    if (w["name"] != "child") continue;
    seen_child = true;
    CHECK(w["description"] == "Holds ***");
    CHECK(w["input_schema"]["properties"]["input"]["description"] == "What to ask (not ***)");
  }
  CHECK(seen_child);
  auto tools = client.Post("/mcp", R"({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})", "application/json");
  REQUIRE(tools);
  INFO(tools->body);
  CHECK(tools->body.find("Holds ***") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(tools->body, kSubKey));
  served.signal(SIGTERM);
  auto ended = served.wait();
  CHECK_FALSE(test::holds_piece_of_key(ended.out + ended.err, kSubKey));
}

TEST_CASE("secrets e2e: engine mcp lists a description read through ${VAR} masked", "[e2e][secrets][mcp_server]") {
  test::TempDir dir;
  dir.write("child.yaml", child_workflow());
  std::string lines = R"({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})"
                      "\n"
                      R"({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})"
                      "\n";
  auto r = test::run_engine("mcp " + test::shell_quote(dir.path().string()), lines, key_env());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(R"x("description":"Holds ***")x") != std::string::npos);
  CHECK(r.out.find(R"x("description":"What to ask (not ***)")x") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(r.out + r.err, kSubKey));
}

TEST_CASE("secrets e2e: an MCP server that quotes its key on stderr as it dies at load has it masked in the error",
          "[e2e][secrets][mcp]") {
  test::TempDir dir;
  auto child = dir.write("child.yaml", child_workflow("leak_at_start"));
  auto parent = dir.write("step_parent.yaml", kStepParent);
  for (const auto& file : {child, parent}) {
    INFO(file.filename().string());
    auto r = test::run_engine("run " + test::shell_quote(file.string()) + " --input hi", "", key_env());
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("fatal: token is ***") != std::string::npos);
    CHECK_FALSE(test::holds_piece_of_key(r.out + r.err, kSubKey));
  }
  // Alone in its folder it fails the server, which says why; beside one that loads, it is a warning.
  auto none = test::run_engine("serve " + test::shell_quote(dir.path().string()) + " --no-store", "", key_env());
  INFO(none.err);
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("no workflow to serve: none of those found loads:") != std::string::npos);
  CHECK(none.err.find("fatal: token is ***") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(none.out + none.err, kSubKey));
  dir.write("ok.yaml", "steps:\n  a: {kind: template, template: ok}\n");
  int port = test::free_port();
  test::EngineProcess served(
      "serve " + test::shell_quote(dir.path().string()) + " --port " + std::to_string(port) + " --no-store", key_env());
  REQUIRE(test::wait_until_listening(port));
  served.signal(SIGTERM);
  auto ended = served.wait();
  INFO(ended.err);
  CHECK(ended.err.find("fatal: token is ***") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(ended.out + ended.err, kSubKey));
}
