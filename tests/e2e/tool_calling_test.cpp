// The tool-calling example as a user runs it: offline, then against the loopback server speaking OpenAI's
// tool_calls (whole and streamed) and Anthropic's tool_use, including a tool name the workflow does not have.
#include <catch2/catch.hpp>

#include "engine/core/file.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;
using engine::test::run_engine;

namespace {

MockLlmServer::Reply openai_tool_call(const std::string& id, const std::string& name, const std::string& arguments) {
  Value message{{"role", "assistant"}, {"content", nullptr},
                {"tool_calls", {{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}}}}};
  Value body{{"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "tool_calls"}}}},
             {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 10}}}};
  return {200, body.dump()};
}

MockLlmServer::Reply anthropic_tool_use(const std::string& id, const std::string& name, const Value& input) {
  Value body{{"type", "message"}, {"role", "assistant"},
             {"content", {{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}}}},
             {"stop_reason", "tool_use"}, {"usage", {{"input_tokens", 50}, {"output_tokens", 10}}}};
  return {200, body.dump()};
}

const char* const kQuestion = " --input 'What is 12 * 7 + 3?'";

}  // namespace

TEST_CASE("the tool-calling example answers offline, and engine parse says it reads tool calls", "[e2e][tool_calling]") {
  auto r = run_engine(std::string("run workflows/calculator_tools.yaml --no-stream") + kQuestion);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "87\n");
  CHECK(r.err.find("Invoking: `calculator` with `{\"input\": \"12 * 7 + 3\"}`\n87\n") != std::string::npos);
  auto parse = run_engine("parse workflows/calculator_tools.yaml", "Final Answer: 1");
  CHECK(parse.exit_code == 2);
  CHECK(parse.err == "engine: error[usage]: this workflow's agent reads the model's tool calls, not its text: engine parse is "
                     "for react agents\n");
  CHECK(run_engine("render workflows/calculator_tools.yaml --input 'What is 1 + 1?'").out ==
        "[system]\nYou are a careful assistant. Use the calculator for any arithmetic, then answer with the number "
        "alone.\n\n[user]\nWhat is 1 + 1?\n\n");
}

TEST_CASE("tool calls from an OpenAI-compatible server: an unknown tool, then the calculator, then the answer",
          "[e2e][tool_calling][openai]") {
  MockLlmServer server;
  server.enqueue(openai_tool_call("call_a", "wolfram", R"({"input": "12*7+3"})"));
  server.enqueue(openai_tool_call("call_b", "calculator", R"({"input": "12*7+3"})"));
  server.enqueue(MockLlmServer::chat("87"));
  auto r = run_engine(std::string("run workflows/calculator_tools.yaml --json -q --llm openai:test-model") + kQuestion,
                      "", "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  CHECK(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == "87");
  CHECK(j["intermediate_steps"][0]["observation"] == "wolfram is not a valid tool, try one of [calculator].");
  CHECK(j["intermediate_steps"][1]["observation"] == "87");
  auto sent = server.requests();
  REQUIRE(sent.size() == 3);
  CHECK(sent[0].body["tools"][0]["function"]["name"] == "calculator");
  CHECK(sent[0].body.contains("stop") == false);
  Value last = sent[2].body["messages"];
  CHECK(last[2] == Value::parse(R"({"role": "assistant", "content": null, "tool_calls": [{"id": "call_a",
      "type": "function", "function": {"name": "wolfram", "arguments": "{\"input\": \"12*7+3\"}"}}]})"));
  CHECK(last[3] == Value::parse(R"({"role": "tool", "tool_call_id": "call_a",
      "content": "wolfram is not a valid tool, try one of [calculator]."})"));
  CHECK(last[5] == Value::parse(R"({"role": "tool", "tool_call_id": "call_b", "content": "87"})"));
}

TEST_CASE("streamed tool-call deltas run the tool and the answer streams once", "[e2e][tool_calling][stream]") {
  MockLlmServer server;
  auto delta = [](Value call) {
    return MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"delta", {{"tool_calls", {std::move(call)}}}}}}}});
  };
  MockLlmServer::Reply calls;
  calls.pieces = {delta({{"index", 0}, {"id", "call_1"}, {"type", "function"}, {"function", {{"name", "calculator"}, {"arguments", ""}}}}),
                  delta({{"index", 0}, {"function", {{"arguments", "{\"input\": \"12"}}}}),
                  delta({{"index", 0}, {"function", {{"arguments", " * 7 + 3\"}"}}}}),
                  MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"delta", Value::object()}, {"finish_reason", "tool_calls"}}}}}),
                  "data: [DONE]\n\n"};
  server.enqueue(calls);
  server.enqueue(MockLlmServer::chat_stream({"The answer", " is 87."}));
  auto r = run_engine(std::string("run workflows/calculator_tools.yaml --stream --llm openai:test-model") + kQuestion, "",
                      "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "The answer is 87.\n");
  CHECK(r.err.find("Invoking: `calculator` with `{\"input\": \"12 * 7 + 3\"}`\n87\nThe answer is 87.\n") !=
        std::string::npos);
  size_t first = r.err.find("The answer is 87.");
  CHECK(r.err.find("The answer is 87.", first + 1) == std::string::npos);
}

TEST_CASE("tool_use blocks from Anthropic run the tool, answered with tool_result blocks", "[e2e][tool_calling][anthropic]") {
  MockLlmServer server;
  server.enqueue(anthropic_tool_use("toolu_1", "calculator", Value{{"input", "12 * 7 + 3"}}));
  server.enqueue(MockLlmServer::message("87"));
  auto r = run_engine(std::string("run workflows/calculator_tools.yaml -q --llm anthropic:claude-test") + kQuestion, "",
                      "ANTHROPIC_BASE_URL=" + server.base_url() + " ANTHROPIC_API_KEY=sk-ant-e2e");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "87\n");
  auto sent = server.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].body["system"] ==
        "You are a careful assistant. Use the calculator for any arithmetic, then answer with the number alone.");
  CHECK(sent[0].body["tools"][0]["input_schema"]["required"] == Value::array({"input"}));
  CHECK(sent[1].body["messages"][2] == Value::parse(R"({"role": "user", "content": [{"type": "tool_result",
      "tool_use_id": "toolu_1", "content": "87"}]})"));
}

namespace {

// A tool-calling agent with a typed Lua tool: the scripted model first breaks the schema, reads the error, then
// calls the tool right.
const char* const kTypedWorkflow = R"(inputs:
  input: what to add
llm:
  provider: scripted
  tool_choice: required
  scripted:
    rules:
      - match: "(?s)tool: \\{\"sum\":(?P<sum>\\d+)\\}\n$"
        reply: "{{ sum }}"
      - match: "(?s)tool: tool 'add' was not run: [^\n]*\n$"
        tool_calls:
          - name: add
            arguments: '{"x": 2, "y": 40}'
      - match: "(?s).*"
        tool_calls:
          - name: add
            arguments: '{"x": "two"}'
tools:
  - lua: add.lua
    parameters:
      type: object
      properties:
        x: {type: number, description: the first number}
        y: {type: number}
      required: [x, y]
agent:
  kind: tool_calling
  prompt: "{{ input }}"
)";

}  // namespace

TEST_CASE("a typed tool: arguments checked against its parameters, the violation fed back, then fixed",
          "[e2e][tool_calling][parameters]") {
  test::TempDir dir;
  dir.write("add.lua", "return function(a) return { sum = a.x + a.y } end");
  auto workflow = dir.write("typed.yaml", kTypedWorkflow);
  auto recording = dir.path() / "typed.jsonl";
  auto r = run_engine("run " + test::shell_quote(workflow.string()) + " --json -q --input 'add them' --record " +
                      test::shell_quote(recording.string()));
  REQUIRE(r.exit_code == 0);
  Value result = Value::parse(r.out);
  CHECK(result["output"] == "42");
  REQUIRE(result["intermediate_steps"].size() == 2);
  CHECK(result["intermediate_steps"][0]["action"]["tool_input"] == Value{{"x", "two"}});
  CHECK(result["intermediate_steps"][0]["observation"] ==
        "tool 'add' was not run: its arguments do not match its parameters: at /x: has a type the schema does not "
        "allow (a string); at /y: is required");
  CHECK(result["intermediate_steps"][1]["action"]["tool_input"] == Value{{"x", 2}, {"y", 40}});
  CHECK(result["intermediate_steps"][1]["observation"] == Value{{"sum", 42}});
  // tool_choice is part of every recorded request, so a replay with another tool_choice does not match.
  std::string recorded = read_file(recording);
  CHECK(recorded.find("\"tool_choice\":\"required\"") != std::string::npos);
  CHECK(recorded.find("\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"") !=
        std::string::npos);

  auto tool = run_engine("tool " + test::shell_quote(workflow.string()) + " add --input '{\"x\": 1, \"y\": 2}' --json");
  CHECK(tool.exit_code == 0);
  CHECK(tool.out == "{\"tool\":\"add\",\"ok\":true,\"observation\":{\"sum\":3}}\n");
  auto bad = run_engine("tool " + test::shell_quote(workflow.string()) + " add --input 'x=1'");
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("tool 'add' was not run: its input must be a JSON object of its arguments") != std::string::npos);
  // With --json the failure's kind is its name.
  auto bad_json = run_engine("tool " + test::shell_quote(workflow.string()) + " add --input 'x=1' --json");
  CHECK(bad_json.exit_code == 1);
  CHECK(bad_json.out ==
        "{\"tool\":\"add\",\"ok\":false,\"observation\":\"tool 'add' was not run: its input must be a JSON object "
        "of its arguments (parse error at line 1, column 1: syntax error while parsing value - invalid literal)\","
        "\"error\":\"tool.invalid_arguments\"}\n");
}

TEST_CASE("llm.tool_choice must be auto, none, required, any or one of the agent's tools", "[e2e][tool_calling]") {
  test::TempDir dir;
  dir.write("add.lua", "return function(a) return 1 end");
  std::string yaml = kTypedWorkflow;
  yaml.replace(yaml.find("tool_choice: required"), 21, "tool_choice: ad");
  auto workflow = dir.write("typed.yaml", yaml);
  auto r = run_engine("validate " + test::shell_quote(workflow.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("typed.yaml:5:16: llm.tool_choice 'ad' is neither auto, none, required, any nor one of the "
                   "agent's tools (did you mean 'add'?)") != std::string::npos);
}

TEST_CASE("an output schema: the answer is the final_answer tool's arguments, --json prints it, outputs pick fields",
          "[e2e][tool_calling][structured]") {
  test::TempDir dir;
  auto workflow = dir.write("structured.yaml", R"(inputs:
  input: a question
outputs:
  answer:
    value: "{{ output.answer }}"
llm:
  provider: scripted
  tool_choice: required
  scripted:
    rules:
      - match: "(?s)not accepted"
        tool_calls:
          - name: final_answer
            arguments: '{"answer": 4, "tools_used": []}'
      - match: "(?s).*"
        tool_calls:
          - name: final_answer
            arguments: '{"answer": "four"}'
agent:
  kind: tool_calling
  prompt: "{{ input }}"
  output_schema:
    type: object
    properties:
      answer: {type: number}
      tools_used: {type: array, items: {type: string}}
    required: [answer, tools_used]
)");
  auto r = run_engine("run " + test::shell_quote(workflow.string()) + " --json -q --input '2+2?'");
  REQUIRE(r.exit_code == 0);
  Value result = Value::parse(r.out);
  CHECK(result["output"] == Value{{"answer", 4}, {"tools_used", Value::array()}});
  CHECK(result["outputs"]["answer"] == "4");
  auto plain = run_engine("run " + test::shell_quote(workflow.string()) + " -q --input '2+2?'");
  CHECK(plain.out == "{\"answer\":4,\"tools_used\":[]}\n");

  auto bad = dir.write("bad.yaml", "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: [x]\n"
                                   "agent:\n  kind: react\n  output_schema:\n    type: object\n    propertys: {}\n");
  auto v = run_engine("validate " + test::shell_quote(bad.string()));
  CHECK(v.exit_code == 2);
  CHECK(v.err.find("bad.yaml:11:16: agent.output_schema.propertys: unknown keyword 'propertys' (did you mean "
                   "'properties'?)") != std::string::npos);
}
