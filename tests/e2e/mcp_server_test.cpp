// engine mcp as an MCP client starts it: the official SDK client (@modelcontextprotocol/client, from npm in
// tests/peers) over stdio, in the 2025 era and in 2026-07-28's, listing the workflows as tools, calling one with
// progress, one with arguments that do not fit, and cancelling a slow one. The called workflow's steps take 50 ms
// each, so its first progress notification comes well before its result (one that comes with the result may reach the
// client's handler after its call has ended).
#include <signal.h>

#include <catch2/catch.hpp>
#include <httplib.h>

#include <map>
#include <set>

#include "engine/core/json_parse.h"
#include "engine/net/child_process.h"
#include "engine/net/descriptor_watch.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const char* const kStepsTool = R"(name: shout
description: Shouts a text.
inputs:
  text: The words
outputs:
  loud:
    description: The words, loud
    value: "{{ steps.shout.output }}"
llm:
  provider: scripted
  scripted:
    latency_ms: 50
    rules:
      - {match: 'Shout: (?P<t>.*)$', reply: '{{ t | upper }}'}
      - {match: 'Whisper: (?P<t>.*)$', reply: '{{ t | lower }}'}
steps:
  shout: {kind: llm, prompt: 'Shout: {{ text }}'}
  whisper: {kind: llm, prompt: 'Whisper: {{ steps.shout.output }}'}
)";

// The client's report; `transport` is "stdio COMMAND..." or "http URL".
Value sdk_client(const std::string& era, const std::string& transport) {
  test::CommandResult r = test::run_command("ERA=" + era + " TOOL=shout ARGS='{\"text\": \"two words\"}' " +
                                            "node tests/peers/mcp_client_check.mjs " + transport);
  INFO(r.out << r.err);
  Value v = parse_json(r.out);
  REQUIRE(v.is_object());
  CHECK_FALSE(v.contains("crashed"));
  return v;
}

}  // namespace

TEST_CASE("engine mcp: the official SDK client lists and calls the workflows over stdio in both eras",
          "[e2e][mcp][mcp_server]") {
  test::require_npm_peers();
  test::TempDir dir;
  dir.write("shout.yaml", kStepsTool);
  dir.write("slow.yaml", test::slow_workflow(30000));
  for (const std::string era : {"legacy", "modern"}) {
    INFO(era);
    Value seen = sdk_client(era, "stdio " + test::shell_quote(ENGINE_BIN) + " mcp " + test::shell_quote(dir.path().string()));
    CHECK(seen["era"] == era);
    REQUIRE(seen["tools"].size() == 2);
    CHECK(seen["tools"][0]["name"] == "shout");
    CHECK(seen["tools"][0]["description"] == "Shouts a text.");
    CHECK(seen["tools"][0]["input"]["required"] == Value::array({"text"}));
    CHECK(seen["call"]["isError"] == false);
    CHECK(seen["call"]["text"] == "TWO WORDS");  // the first declared output
    CHECK(seen["call"]["structured"] == Value{{"loud", "TWO WORDS"}});
    CHECK(seen["tools"][0]["input"]["properties"]["text"]["type"] == "string");
    CHECK_FALSE(seen["progress"].empty());
    CHECK(seen["bad"]["isError"] == true);
    CHECK(seen["bad"]["text"].get<std::string>().find("no_such_input") != std::string::npos);
    // The slow call, given up after 300 ms, ends at once: the client is not held for its 30 s.
    CHECK(seen["cancel"]["ms"].get<int>() < 5000);
  }
}

TEST_CASE("engine mcp: lines that are not JSON-RPC are answered with errors and the server goes on",
          "[e2e][mcp][mcp_server][hostile]") {
  test::TempDir dir;
  dir.write("shout.yaml", kStepsTool);
  std::string input = std::string("not json\n") + "[1,2]\n" + std::string(17 << 20, 'x') + "\n" +
                      R"({"jsonrpc":"2.0","id":1,"method":"ping"})" + "\n";
  auto r = test::run_engine("mcp " + test::shell_quote((dir.path() / "shout.yaml").string()), input);
  CHECK(r.exit_code == 0);
  std::vector<Value> lines;
  for (size_t at = 0, end; (end = r.out.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(parse_json(std::string_view(r.out).substr(at, end - at)));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["error"]["code"] == -32700);
  CHECK(lines[1]["error"]["code"] == -32600);
  CHECK(lines[2]["error"]["message"].get<std::string>().find("longer than 16 MiB") != std::string::npos);
  CHECK(lines[3]["result"] == Value::object());
  CHECK(r.out.size() < 4096);  // the long line is not echoed back
}

TEST_CASE("engine mcp: each tool call is recorded in the run store and traced under its _meta.traceparent",
          "[e2e][mcp][mcp_server][runs]") {
  test::TempDir dir;
  std::string store = test::shell_quote((dir.path() / "runs.db").string());
  test::OtlpReceiver receiver;
  const std::string caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  std::string lines =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})" "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculator","arguments":{"input":"What is 12 * 7 + 3?"},"_meta":{"traceparent":"00-)" +
      caller_trace + R"(-00f067aa0ba902b7-01"}}})" "\n";
  // stdin stays open a moment, so the call ends before the input does (which would cancel it).
  auto r = test::run_command("sh -c " + test::shell_quote("(printf '%s' " + test::shell_quote(lines) + "; sleep 1) | " +
                                                           test::shell_quote(ENGINE_BIN) + " mcp workflows/calculator.yaml --store " +
                                                           store + " --otlp " + receiver.base_url()));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(R"("text":"87")") != std::string::npos);
  Value runs = parse_json(test::run_engine("runs list --json --store " + store).out);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["command"] == "mcp");
  CHECK(runs[0]["workflow"] == "calculator");
  CHECK(runs[0]["output"] == "87");
  CHECK(runs[0]["trace_id"] == caller_trace);
  std::set<std::string> names;
  std::string call_span, run_parent;
  for (const Value& span : receiver.spans()) {
    CHECK(span["traceId"] == caller_trace);
    names.insert(span["name"].get<std::string>());
    if (span["name"] == "tools/call calculator") {  // the call, a SERVER span under the caller's
      CHECK(span["kind"] == 2);
      CHECK(span["parentSpanId"] == "00f067aa0ba902b7");
      auto attributes = test::OtlpReceiver::attributes(span);
      CHECK(attributes["mcp.method.name"]["stringValue"] == "tools/call");
      CHECK(attributes["gen_ai.tool.name"]["stringValue"] == "calculator");
      CHECK(attributes["jsonrpc.request.id"]["stringValue"] == "2");
      call_span = span["spanId"];
    }
    if (span["name"] == "invoke_workflow calculator") run_parent = span["parentSpanId"];
  }
  CHECK(names.count("invoke_workflow calculator") == 1);
  CHECK(names.count("execute_tool calculator") == 1);
  CHECK(names.count("tools/call calculator") == 1);
  CHECK_FALSE(call_span.empty());
  CHECK(run_parent == call_span);  // the run under the call
}

TEST_CASE("engine serve: the official SDK client lists and calls the workflows over POST /mcp in both eras",
          "[e2e][mcp][mcp_server][serve]") {
  test::require_npm_peers();
  test::TempDir dir;
  dir.write("shout.yaml", kStepsTool);
  dir.write("slow.yaml", test::slow_workflow(30000));
  int port = test::free_port();
  test::EngineProcess served("serve " + test::shell_quote(dir.path().string()) + " -q --heartbeat 0.2 --port " +
                             std::to_string(port));
  REQUIRE(test::wait_until_listening(port));
  for (const std::string era : {"legacy", "modern"}) {
    INFO(era);
    Value seen = sdk_client(era, "http http://127.0.0.1:" + std::to_string(port) + "/mcp");
    CHECK(seen["era"] == era);
    REQUIRE(seen["tools"].size() == 2);
    CHECK(seen["call"]["text"] == "TWO WORDS");
    CHECK(seen["call"]["structured"] == Value{{"loud", "TWO WORDS"}});
    CHECK(seen["tools"][0]["input"]["properties"]["text"]["type"] == "string");
    CHECK_FALSE(seen["progress"].empty());
    CHECK(seen["bad"]["isError"] == true);
    CHECK(seen["cancel"]["ms"].get<int>() < 5000);
  }
}

TEST_CASE("engine to engine over MCP: one trace across the hop, the server's call under the client's tool call",
          "[e2e][mcp][mcp_server][otlp]") {
  test::OtlpReceiver receiver;
  test::TempDir dir;
  auto broken_file = dir.write("broken.yaml", "name: broken\ninputs: {input: {}}\nllm:\n  provider: scripted\n  max_retries: 0\n"
                                  "  scripted: {fail: {status: 500, times: 100}, replies: ['Final Answer: never']}\n"
                                  "agent: {kind: react, prompt: \"{{ input }}\\n{{ agent_scratchpad }}\"}\n");
  int port = test::free_port();
  test::EngineProcess served("serve workflows/calculator.yaml " + test::shell_quote(broken_file.string()) +
                             " -q --no-store --port " +
                             std::to_string(port) + " --otlp " + receiver.base_url());
  REQUIRE(test::wait_until_listening(port));
  auto client = dir.write("client.yaml",
                          "name: client\ninputs: {input: {}}\nllm:\n  provider: scripted\n  scripted:\n    rules:\n"
                          "      - {user: '.', tool_calls: [{name: calculator, arguments: '{\"input\": \"What is 12 * 7 + 3?\"}'}]}\n"
                          "      - {tool: '(?P<r>.+)', reply: 'it is {{ r }}'}\n"
                          "agent: {kind: tool_calling}\ntools:\n  - mcp: {url: \"http://127.0.0.1:" + std::to_string(port) +
                              "/mcp\"}\n    tools: [calculator]\n");
  auto r = test::run_engine("run " + test::shell_quote(client.string()) + " -q --no-store --input go --otlp " +
                            receiver.base_url());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "it is {\"answer\":\"87\"}\n");  // the calculator's declared output, as its structured result
  // A failing workflow answers isError: its server span says tool_error.
  httplib::Client http("127.0.0.1", port);
  auto failed = http.Post("/mcp", R"({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "broken", "arguments": {"input": "x"}}})",
                          "application/json");
  REQUIRE(failed);
  CHECK(failed->body.find(R"("isError":true)") != std::string::npos);
  served.signal(SIGTERM);
  served.wait();
  std::map<std::string, Value> by_id;
  Value call, broken;
  for (const Value& span : receiver.spans()) {
    by_id[span["spanId"].get<std::string>()] = span;
    if (span["name"] == "tools/call calculator") call = span;
    if (span["name"] == "tools/call broken") broken = span;
  }
  REQUIRE(call.is_object());
  // The server's call is the child of the client's tool call, in the client's trace, under the client's agent.
  const Value& tool_call = by_id[call["parentSpanId"].get<std::string>()];
  CHECK(tool_call["name"] == "execute_tool calculator");
  CHECK(call["traceId"] == tool_call["traceId"]);
  CHECK(by_id[tool_call["parentSpanId"].get<std::string>()]["name"] == "invoke_agent client");
  CHECK(test::OtlpReceiver::attributes(call).count("error.type") == 0);
  REQUIRE(broken.is_object());
  CHECK(test::OtlpReceiver::attributes(broken)["error.type"]["stringValue"] == "tool_error");
  CHECK(broken["status"]["code"] == 2);
}

namespace {

// The official conformance suite (@modelcontextprotocol/conformance, on Node 22 from npm: tests/peers) against
// `url` at both revisions, with a baseline of the scenarios for features the engine does not offer
// (tests/peers/mcp_conformance_baseline.yml, and `extra` for this target): any other failure, or a baselined scenario
// that now passes, fails.
void check_conformance(const std::string& url, const std::string& extra) {
  test::TempDir dir;
  std::string common = test::run_command("cat tests/peers/mcp_conformance_baseline.yml").out;
  REQUIRE(common.find("server:\n") != std::string::npos);
  for (const std::string revision : {"2025-11-25", "2026-07-28"}) {
    INFO(revision);
    std::string baseline = common + extra + (revision == "2025-11-25" ? "  - server-sse-multiple-streams\n" : "");
    auto file = dir.write("baseline-" + revision + ".yml", baseline);
    auto r = test::run_command(
        "tests/peers/node_modules/.bin/node tests/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js "
        "server --url " + url + " --requirements " + revision + " --expected-failures " +
        test::shell_quote(file.string()));
    size_t total = r.out.rfind("Total: ");
    WARN(url << " " << revision << ": "
              << (total == std::string::npos ? std::string("no total") : r.out.substr(total, r.out.find('\n', total) - total)));
    INFO(r.out.substr(r.out.size() > 3000 ? r.out.size() - 3000 : 0) << r.err);
    CHECK(r.exit_code == 0);
  }
}

}  // namespace

TEST_CASE("engine serve passes the official MCP conformance suite at 2025-11-25 and 2026-07-28, but for what it does not offer",
          "[e2e][mcp][mcp_server][conformance]") {
  test::require_npm_peers();
  int port = test::free_port();
  test::EngineProcess served("serve workflows/calculator.yaml -q --no-store --port " + std::to_string(port));
  REQUIRE(test::wait_until_listening(port));
  check_conformance("http://127.0.0.1:" + std::to_string(port) + "/mcp", "");
}

// The suite speaks to a URL only: engine mcp is reached through a bridge that forwards each message as a line, so
// the suite judges its messages; the checks of the HTTP transport itself are engine serve's (above).
TEST_CASE("engine mcp passes the official MCP conformance suite's message checks at both revisions",
          "[e2e][mcp][mcp_server][conformance]") {
  test::require_npm_peers();
  int port = test::free_port();
  net::DescriptorWatch watch;
  net::ChildProcess bridge(net::ProcessSpec{
      test::source_path("tests/peers/node_modules/.bin/node"),
      {test::source_path("tests/peers/stdio_bridge.mjs"), std::to_string(port), ENGINE_BIN, "mcp",
       test::source_path("workflows/calculator.yaml"), "--no-store"}},
                           watch);
  REQUIRE(test::wait_until_listening(port));
  check_conformance("http://127.0.0.1:" + std::to_string(port) + "/mcp",
                    test::run_command("cat tests/peers/mcp_conformance_stdio_extra.yml").out);
}
