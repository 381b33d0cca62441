// The MCP client against servers written for the tests (fake_server.mjs): the protocol as a good server speaks it,
// and what a hostile one does (garbage, floods, silence, endless lines and lists, dying mid-call).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "engine/core/cancel.h"
#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/net/io_threads.h"
#include "engine/tools/mcp/mcp_server.h"
#include "engine/tools/mcp/mcp_tool.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using namespace engine::tools::mcp;
using namespace std::chrono_literals;

namespace {

McpServerConfig fake(const std::string& mode, std::chrono::milliseconds timeout = 10s) {
  McpServerConfig c;
  c.name = "fake";
  c.process = net::ProcessSpec{"node", {test::source_path("tests/tools/mcp/fake_server.mjs"), mode}, {}, {}};
  c.timeout = timeout;
  return c;
}

struct Fixture {
  explicit Fixture(McpServerConfig config) : server(std::make_shared<const McpServer>(std::move(config), io)) {}
  Toolset tools(ToolsetOptions options = {}) { return list_toolset(server, options); }
  ToolResult call(const std::string& name, const Value& args, EventSink* events = nullptr, const Cancel* cancel = nullptr) {
    for (const auto& t : set.tools)
      if (t->name() == name) return t->instantiate(ToolContext{events, cancel, nullptr})->invoke(args);
    FAIL("no tool " << name);
    return {};
  }
  std::shared_ptr<net::IoThreads> io = std::make_shared<net::IoThreads>();
  std::shared_ptr<const McpServer> server;
  Toolset set;
};

std::string mcp_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("mcp: every page of tools is listed and each becomes a typed tool", "[tools][mcp]") {
  Fixture f(fake("good"));
  f.set = f.tools();
  std::vector<std::string> names;
  for (const auto& t : f.set.tools) names.push_back(t->name());
  CHECK(names == std::vector<std::string>{"add", "fail", "slow", "progress", "roots", "bad_struct", "crash",
                                          "cancelled", "leak", "draft2020", "grow"});
  CHECK(f.set.tools[0]->description() == "Adds two numbers");
  CHECK(f.set.tools[0]->parameters()["required"] == Value{"a", "b"});
  CHECK(f.set.tools[0]->parameters_schema() != nullptr);
  // What the engine cannot check is said once, never dropped in silence.
  CHECK(f.set.warning.find("'draft2020'") != std::string::npos);
  CHECK(f.set.warning.find("prefixItems") != std::string::npos);
  CHECK(f.set.warning.find("names no model could call are left out: bad name") != std::string::npos);
  CHECK(f.server->info().name == "fake");
  CHECK(f.server->info().protocol_version == "2025-11-25");
}

TEST_CASE("mcp: an allow-list keeps the tools it names and a prefix renames them", "[tools][mcp]") {
  Fixture f(fake("good"));
  f.set = f.tools(ToolsetOptions{{"add", "fail"}, "calc_", {}});
  REQUIRE(f.set.tools.size() == 2);
  CHECK(f.set.tools[0]->name() == "calc_add");
  CHECK(f.call("calc_add", Value{{"a", 1}, {"b", 2}}).output == Value{{"sum", 3}});
  CHECK(mcp_error_of([&] { f.tools(ToolsetOptions{{"ad"}, "", {}}); }) ==
        "mcp.unknown_tool: MCP server 'fake' has no tool 'ad' (did you mean 'add'?) (it lists: add, fail, slow, "
        "progress, roots, bad_struct, crash, cancelled, leak, draft2020, bad name\nAction: x, grow)");
}

TEST_CASE("mcp: results are structured content, joined text, or a tool failure the model sees", "[tools][mcp]") {
  Fixture f(fake("good"));
  f.set = f.tools();
  ToolResult sum = f.call("add", Value{{"a", 2}, {"b", 3}});
  CHECK(sum.ok());
  CHECK(sum.output == Value{{"sum", 5}});
  ToolResult failed = f.call("fail", Value::object());
  CHECK(failed.error_kind == ErrorKind::ToolError);
  CHECK(failed.text() == "the disk is full");
  ToolResult broken = f.call("bad_struct", Value::object());
  CHECK(broken.error_kind == ErrorKind::McpBadResult);
  CHECK(broken.text() == "tool 'bad_struct' answered with structured content that does not match its outputSchema: at /sum: is required");
  CHECK(mcp_error_of([&] { f.server->call("nope", Value::object(), {}); }) ==
        "mcp.error: MCP server 'fake': answered tools/call 'nope' with an error: Tool nope not found (code -32602)");
}

TEST_CASE("mcp: progress notifications reach the run as events", "[tools][mcp]") {
  Fixture f(fake("good"));
  f.set = f.tools();
  test::EventLog log;
  ToolResult r = f.call("progress", Value::object(), &log);
  CHECK(r.output == "done");
  REQUIRE(log.events.size() == 3);
  CHECK(log.events[0].type == "tool_progress");
  CHECK(log.events[2].data == Value{{"tool", "progress"}, {"progress", 3}, {"total", 3}, {"message", "step 3"}});
}

TEST_CASE("mcp: the server's requests are answered: its roots, ping, and -32601 for what is not offered",
          "[tools][mcp]") {
  McpServerConfig c = fake("good");
  c.root_uris = {"file:///srv/docs"};
  Fixture f(c);
  f.set = f.tools();
  ToolResult r = f.call("roots", Value::object());
  CHECK(r.text() == R"({"roots":[{"uri":"file:///srv/docs"}],"unknown":-32601})");
}

TEST_CASE("mcp: a stopped run cancels its call and tells the server and a late call times out and tells it too",
          "[tools][mcp]") {
  Fixture f(fake("good", 400ms));
  f.set = f.tools();
  Cancel cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    cancel.cancel();
  });
  ToolResult r = f.call("slow", Value::object(), nullptr, &cancel);
  stopper.join();
  CHECK(r.error_kind == ErrorKind::RunCancelled);
  ToolResult late = f.call("slow", Value::object());
  CHECK(late.error_kind == ErrorKind::McpTimeout);
  CHECK(late.text() == "tool 'slow': MCP server 'fake': did not answer tools/call 'slow' in time");
  CHECK(f.call("cancelled", Value::object()).output == "2");
}

TEST_CASE("mcp: a server that dies mid-call fails that call with its last words and is started again for the next",
          "[tools][mcp]") {
  Fixture f(fake("good"));
  f.set = f.tools();
  ToolResult r = f.call("crash", Value::object());
  CHECK(r.error_kind == ErrorKind::McpClosed);
  CHECK(r.text() == "tool 'crash': MCP server 'fake': went away during tools/call 'crash': 'node' closed its output; "
                    "its last words on stderr: working on it\npanic: the index is corrupt");
  CHECK(f.call("add", Value{{"a", 1}, {"b", 1}}).output == Value{{"sum", 2}});
}

TEST_CASE("mcp: hostile servers end in clear errors, never a hang or a crash", "[tools][mcp]") {
  SECTION("one that dies before answering") {
    Fixture f(fake("die_at_start"));
    CHECK(mcp_error_of([&] { f.tools(); }) ==
          "mcp.closed: MCP server 'fake': went away during server/discover: 'node' closed its output; its last words on "
          "stderr: starting...\nfatal: no configuration found");
  }
  SECTION("one that never answers") {
    Fixture f(fake("silent", 300ms));
    CHECK(mcp_error_of([&] { f.tools(); }) == "mcp.timeout: MCP server 'fake': did not answer initialize in time");
  }
  SECTION("one whose line never ends") {
    McpServerConfig c = fake("huge");
    c.max_message_bytes = 1 << 20;
    Fixture f(c);
    CHECK(mcp_error_of([&] { f.tools(); }) ==
          "mcp.closed: MCP server 'fake': went away during initialize: 'node' wrote a line longer than 1048576 bytes; "
          "it was stopped");
  }
  SECTION("one that lists 100,000 tools") {
    Fixture f(fake("many_tools"));
    CHECK(mcp_error_of([&] { f.tools(); }) ==
          "mcp.limit: MCP server 'fake': lists more than 1000 tools; an agent cannot choose among so many");
  }
  SECTION("one whose list never ends") {
    Fixture f(fake("endless_pages"));
    CHECK(mcp_error_of([&] { f.tools(); }) == "mcp.limit: MCP server 'fake': lists its tools on more than 100 pages");
  }
  SECTION("one that speaks a revision the engine does not") {
    Fixture f(fake("old_version"));
    CHECK(mcp_error_of([&] { f.tools(); }) ==
          "mcp.protocol: MCP server 'fake': answered initialize with protocol revision '2023-01-01', which the engine does "
          "not speak (it speaks 2026-07-28 and 2025-11-25)");
  }
  SECTION("one that writes lines that are not JSON-RPC among its answers") {
    Fixture f(fake("garbage"));
    f.set = f.tools();
    CHECK(f.call("add", Value{{"a", 1}, {"b", 2}}).output == Value{{"sum", 3}});
  }
  SECTION("one that floods notifications before each answer") {
    Fixture f(fake("flood", 60s));  // 40,000 lines read: a sanitizer build on a busy machine needs more than 10 s
    f.set = f.tools();
    CHECK(f.call("add", Value{{"a", 1}, {"b", 2}}).output == Value{{"sum", 3}});
  }
  SECTION("one whose answer holds bytes that are not UTF-8: the call fails at once, not at its timeout") {
    Fixture f(fake("bad_utf8", 600s));
    f.set = f.tools();
    CHECK(mcp_error_of([&] { f.server->call("add", Value{{"a", 1}, {"b", 2}}, {}); }) ==
          "mcp.protocol: MCP server 'fake': answered tools/call 'add' badly: its answer is not valid UTF-8");
  }
  SECTION("a command that is not there") {
    McpServerConfig c = fake("good");
    c.process.program = "no-such-mcp-server";
    Fixture f(c);
    CHECK(mcp_error_of([&] { f.tools(); }) ==
          "process.spawn: MCP server 'fake': cannot start 'no-such-mcp-server': not found on the PATH given to it");
  }
}

TEST_CASE("mcp: a 2026-07-28 server on the official SDK v2 is spoken to in its own revision over stdio and HTTP",
          "[tools][mcp]") {
  auto check = [](Fixture& f) {
    f.set = f.tools();
    CHECK(f.server->info().modern);
    CHECK(f.server->info().protocol_version == "2026-07-28");
    CHECK(f.server->info().name == "modern-peer");
    CHECK(f.call("whoami", Value::object()).output == "modern");  // the SDK serves this instance as the new era
    CHECK(f.call("add", Value{{"a", 2}, {"b", 5}}).output == Value{{"sum", 7}});
    CHECK(f.call("fail", Value::object()).error_kind == ErrorKind::ToolError);
    // Its x-mcp-header argument goes as Mcp-Param-Region too (over HTTP the SDK refuses the call without it),
    // a value that is no plain header value in Base64.
    ToolResult located = f.call("locate", Value{{"region", "eu-west-1"}});
    CHECK(located.ok());
    CHECK(located.output == "in eu-west-1");
    CHECK(f.call("locate", Value{{"region", " Zürich "}}).output == "in  Zürich ");
    // Its schemas are 2020-12's: the simple ones are checked like draft 7's.
    CHECK(f.set.tools[0]->parameters()["$schema"] == "https://json-schema.org/draft/2020-12/schema");
    CHECK(f.set.tools[0]->parameters_schema() != nullptr);
  };
  test::require_npm_peers();
  McpServerConfig stdio;
  stdio.name = "modern";
  stdio.process = net::ProcessSpec{"node", {test::source_path("tests/peers/modern_server.mjs"), "stdio"}, {}, {}};
  Fixture over_stdio(stdio);
  check(over_stdio);

  int port = test::free_port();
  net::DescriptorWatch watch;
  net::ChildProcess peer(net::ProcessSpec{"node", {test::source_path("tests/peers/modern_server.mjs"), "http",
                                                   std::to_string(port)}, {}, {}},
                         watch);
  REQUIRE(test::wait_until_listening(port));
  McpServerConfig http;
  http.name = "modern";
  http.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  Fixture over_http(http);
  check(over_http);
}

TEST_CASE("mcp: many runs on fibers share one server, each getting its own answer", "[tools][mcp]") {
  Fixture f(fake("good"));
  f.set = f.tools();
  std::atomic<int> right{0};
  {
    FiberPool pool(2);
    for (int i = 0; i < 200; ++i)
      pool.spawn([&, i] {
        ToolResult r = f.call("add", Value{{"a", i}, {"b", 1000}});
        if (r.ok() && r.output == Value{{"sum", i + 1000}}) ++right;
      });
    pool.join();
  }
  CHECK(right == 200);
}
