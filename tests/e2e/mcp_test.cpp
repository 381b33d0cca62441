// MCP tools end to end, through the built engine, against the official servers from npm (tests/peers, installed by
// scripts/setup.sh) and the tests' fake server: the shipped examples over stdio and Streamable HTTP, every tool the
// test server lists, progress, a run stopped mid-call, validation without and with starting servers, and keys the
// servers are given never shown.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "engine/core/json_parse.h"
#include "engine/net/child_process.h"
#include "engine/net/descriptor_watch.h"
#include "support/test_support.h"

using namespace engine;
using namespace std::chrono_literals;

namespace {

// The examples' `npx -y @modelcontextprotocol/server-...` runs the pinned server, never the network.
std::string with_peers() {
  test::require_npm_peers();
  return "PATH=" + test::shell_quote(test::source_path("tests/peers/bin")) + ":\"$PATH\"";
}

std::string everything_js() {
  test::require_npm_peers();
  return test::source_path("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
}

// server-everything over Streamable HTTP on a port of its own, on 127.0.0.1 only (tests/peers/loopback.mjs),
// stopped (and reaped) when the test ends.
struct EverythingOverHttp {
  EverythingOverHttp()
      : port(test::free_port()),
        server(net::ProcessSpec{"node",
                                {test::source_path("tests/peers/loopback.mjs"), everything_js(), "streamableHttp"},
                                {{"PORT", std::to_string(port)}},
                                {}},
               watch) {
    REQUIRE(test::wait_until_listening(port));
  }
  std::string env() const { return "EVERYTHING_PORT=" + std::to_string(port); }
  int port;
  net::DescriptorWatch watch;
  net::ChildProcess server;
};

std::string stdio_everything(const std::string& extra = "") {
  return "version: 1\nname: everything\nllm: {provider: scripted, scripted: {replies: [\"x\"]}}\ninputs: {input: {}}\n"
         "agent: {}\ntools:\n  - mcp:\n      command: node\n      args: [" +
         everything_js() + ", stdio]\n" + extra;
}

}  // namespace

TEST_CASE("mcp e2e: the files example answers from the folder through the official filesystem server",
          "[e2e][mcp]") {
  auto r = test::run_engine("run workflows/mcp_files.yaml --json --input 'Can I get a refund?'", "", with_peers());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Value out = parse_json(r.out);
  CHECK(out["output"] == "Refunds are accepted within 30 days of purchase, with the receipt.");
  REQUIRE(out["intermediate_steps"].size() == 2);
  CHECK(out["intermediate_steps"][0]["action"]["tool"] == "list_directory");
  CHECK(out["intermediate_steps"][1]["observation"] ==
        Value{{"content", "# Refunds\n\nRefunds are accepted within 30 days of purchase, with the receipt.\n"
                          "Items bought on sale can be exchanged but not refunded.\n"}});
  auto ship = test::run_engine("run workflows/mcp_files.yaml -q --input 'When will my order ship?'", "", with_peers());
  CHECK(ship.out == "Orders ship within two working days. Shipping is free on orders over 50 euros.\n");
}

TEST_CASE("mcp e2e: a read outside the filesystem server's folder is the tool's error, which the model reads",
          "[e2e][mcp]") {
  auto r = test::run_engine("tool workflows/mcp_files.yaml read_text_file --input '{\"path\": \"/etc/passwd\"}'", "",
                            with_peers());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("error[tool.error]: Access denied - path outside allowed directories: /etc/passwd not in ") !=
        std::string::npos);
  // The allow-list keeps the rest of the server's tools from the agent.
  auto tools = test::run_engine("tools workflows/mcp_files.yaml", "", with_peers());
  CHECK(tools.out.find("read_text_file (mcp:server-filesystem): ") == 0);  // in the server's order
  CHECK(tools.out.find("\nlist_directory (mcp:server-filesystem): ") != std::string::npos);
  CHECK(tools.out.find("write_file") == std::string::npos);
}

TEST_CASE("mcp e2e: the everything example over Streamable HTTP: a typed tool, a structured result, a tool error",
          "[e2e][mcp]") {
  EverythingOverHttp http;
  auto r = test::run_engine("run workflows/mcp_everything.yaml -q", "", http.env());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "The sum of 2 and 3 is 5. The weather: "
                 "{\"temperature\":36,\"conditions\":\"Light rain / drizzle\",\"humidity\":82}. The report could not "
                 "be fetched: fetch failed\n");
}

TEST_CASE("mcp e2e: every tool server-everything lists over stdio and over HTTP is a typed tool", "[e2e][mcp]") {
  test::TempDir dir;
  auto wf = dir.write("w.yaml", stdio_everything());
  auto r = test::run_engine("tools --json " + test::shell_quote(wf.string()));
  REQUIRE(r.exit_code == 0);
  Value listed = parse_json(r.out);
  CHECK(listed.size() == 13);
  for (const auto& t : listed) {
    CHECK(t["kind"] == "mcp:server-everything");
    CHECK(t["parameters"]["type"] == "object");
  }
  EverythingOverHttp http;
  auto over_http = dir.write("h.yaml", "version: 1\nname: h\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                       "inputs: {input: {}}\nagent: {}\ntools:\n  - mcp:\n      url: http://127.0.0.1:" +
                                           std::to_string(http.port) + "/mcp\n");
  auto h = test::run_engine("tools --json " + test::shell_quote(over_http.string()));
  REQUIRE(h.exit_code == 0);
  Value over = parse_json(h.out);
  for (auto& t : over) t["kind"] = "mcp:server-everything";  // the other is named for its address
  CHECK(over == listed);
}

TEST_CASE("mcp e2e: progress notifications are shown as the tool runs", "[e2e][mcp]") {
  test::TempDir dir;
  auto wf = dir.write("w.yaml", stdio_everything());
  auto r = test::run_engine("tool " + test::shell_quote(wf.string()) +
                            " trigger-long-running-operation --input '{\"duration\": 0.3, \"steps\": 3}'");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "Long running operation completed. Duration: 0.3 seconds, Steps: 3.\n");
  CHECK(r.err == "\n[trigger-long-running-operation] 1/3\n[trigger-long-running-operation] 2/3\n"
                 "[trigger-long-running-operation] 3/3");
}

TEST_CASE("mcp e2e: SIGINT during a long MCP call ends the run at once", "[e2e][mcp]") {
  test::TempDir dir;
  auto tc = dir.write("tc.yaml",
                      "version: 1\nname: tc\ninputs: {input: {}}\nagent: {kind: tool_calling}\n"
                      "llm:\n  provider: scripted\n  scripted:\n    replies:\n      - tool_calls:\n"
                      "          - name: trigger-long-running-operation\n"
                      "            arguments: '{\"duration\": 60, \"steps\": 60}'\n"
                      "tools:\n  - mcp:\n      command: node\n      args: [" + everything_js() + ", stdio]\n");
  test::EngineProcess engine("run " + test::shell_quote(tc.string()) + " --input go");
  // Started, listed, and the call under way: its first progress shown.
  REQUIRE(test::wait_until(
      [&] { return engine.err_so_far().find("[trigger-long-running-operation] 1/60") != std::string::npos; }, 30000));
  engine.signal(SIGINT);
  auto r = engine.wait();
  CHECK(r.exit_code == 130);  // cancelled, a minute before the operation would end
}

TEST_CASE("mcp e2e: validate starts no server and --connect starts them and checks the tools named", "[e2e][mcp]") {
  test::TempDir dir;
  auto wf = dir.write("w.yaml", "version: 1\nname: v\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                "inputs: {input: {}}\nagent: {tools: [ev_get-sum]}\ntools:\n  - mcp:\n"
                                "      command: node\n      args: [" + everything_js() + ", stdio]\n"
                                "    tools: [get-sum, nope]\n    prefix: ev_\n");
  auto quiet = test::run_engine("validate " + test::shell_quote(wf.string()));
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.find(": ok (2 tools, 1 inputs, 1 MCP server not started (--connect starts it and checks their "
                       "tools))") != std::string::npos);
  auto connected = test::run_engine("validate --connect " + test::shell_quote(wf.string()));
  CHECK(connected.exit_code == 2);
  CHECK(connected.err.find("error[mcp.unknown_tool]: ") != std::string::npos);
  CHECK(connected.err.find(":10:22: tools: MCP server 'server-everything' has no tool 'nope'") != std::string::npos);
}

TEST_CASE("mcp e2e: a key given to a server never shows, even when the server quotes it", "[e2e][mcp]") {
  test::TempDir dir;
  const std::string key = "mcp-secret-0123456789abcdef";
  auto wf = dir.write("w.yaml", "version: 1\nname: k\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                "inputs: {input: {}}\nagent: {}\ntools:\n  - mcp:\n      command: node\n"
                                "      args: [" + test::source_path("tests/tools/mcp/fake_server.mjs") + ", good]\n"
                                "      env: {SECRET_KEY: \"${TEST_MCP_KEY}\"}\n");
  auto r = test::run_engine("tool --json " + test::shell_quote(wf.string()) + " leak --input '{}'", "",
                            "TEST_MCP_KEY=" + key);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("refused key ***") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(r.out + r.err, key));
}

TEST_CASE("mcp e2e: a batch of runs on fibers starts its MCP server once and shares it", "[e2e][mcp]") {
  test::TempDir dir;
  auto starts = dir.path() / "starts";
  auto wf = dir.write("w.yaml",
                      "version: 1\nname: b\ninputs: {input: {}}\nagent: {kind: tool_calling}\n"
                      "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
                      "      - {match: 'tool: ', reply: 'added'}\n"
                      "      - match: 'user: (?P<n>[0-9]+)'\n        tool_calls:\n"
                      "          - {name: add, arguments: '{\"a\": {{ n }}, \"b\": 1}'}\n"
                      "tools:\n  - mcp:\n      command: node\n      args: [" +
                          test::source_path("tests/tools/mcp/fake_server.mjs") + ", good]\n      env: {START_LOG: " +
                          test::shell_quote(starts.string()) + "}\n    tools: [add]\n");
  std::string rows;
  for (int i = 0; i < 60; ++i) rows += "{\"input\": \"" + std::to_string(i) + "\"}\n";
  auto data = dir.write("rows.jsonl", rows);
  auto out = dir.path() / "out.jsonl";
  auto r = test::run_engine("batch " + test::shell_quote(wf.string()) + " --data " + test::shell_quote(data.string()) +
                            " --out " + test::shell_quote(out.string()) + " --concurrency 16");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream results(out);
  int ok = 0;
  for (std::string line; std::getline(results, line);) {
    Value v = parse_json(line);
    int n = std::stoi(v["inputs"]["input"].get<std::string>());
    if (v["status"] == "ok" && v["intermediate_steps"][0]["observation"] == Value{{"sum", n + 1}}) ++ok;
  }
  CHECK(ok == 60);
  std::ifstream started(starts);
  int lines = 0;
  for (std::string line; std::getline(started, line);) ++lines;
  CHECK(lines == 1);
}

