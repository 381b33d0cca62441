// The engine's MCP server side, in process: messages in, messages out. Both eras' openings, the tool list built from
// the workflows' inputs and outputs, calls with progress, arguments that do not fit as tool errors, cancellation,
// and what is not MCP answered as JSON-RPC errors.
#include <catch2/catch.hpp>
#include <thread>

#include "engine/app/loading.h"
#include "engine/server/mcp_service.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::server;
using namespace std::chrono_literals;

namespace {

const char* const kTwoSteps = R"(name: shout
description: Shouts a text, then counts its words.
inputs:
  text: The words
  times:
    description: How often
    default: 1
  pitch:
    type: number
    default: 1
outputs:
  loud:
    description: The words, loud
    value: "{{ steps.shout.output }}"
llm:
  provider: scripted
  scripted:
    latency_ms: 20
    rules: [{match: 'Shout: (?P<t>.*)$', reply: '{{ t | upper }}'}]
steps:
  shout: {kind: llm, prompt: 'Shout: {{ text }}'}
  count: {kind: template, template: '{{ steps.shout.output.split() | length }}'}
)";

struct McpFixture {
  test::TempDir dir;
  std::shared_ptr<const Catalog> catalog;
  FiberPool pool{2};
  RunSlots slots{8, 8};
  RunLauncher runs{pool, slots, std::chrono::seconds(60)};
  Metrics metrics;
  McpService service;
  std::mutex mu;
  std::vector<Value> sent;
  McpService::Send send = [this](const Value& m) {
    std::lock_guard lock(mu);
    sent.push_back(m);
  };

  static std::shared_ptr<const Catalog> load(const test::TempDir& dir) {
    dir.write("shout.yaml", kTwoSteps);
    dir.write("slow.yaml", test::slow_workflow(30000));
    std::vector<std::string> problems;
    return Catalog::load({dir.path().string()}, {}, problems);
  }
  McpFixture()
      : catalog(load(dir)), service([this] { return catalog; }, runs, metrics) {}
  ~McpFixture() { pool.join(); }

  // The message with this id, waiting for it up to `wait`.
  Value answer(int id, std::chrono::milliseconds wait = 5000ms) {
    for (auto until = std::chrono::steady_clock::now() + wait; std::chrono::steady_clock::now() < until;) {
      {
        std::lock_guard lock(mu);
        for (const Value& m : sent)
          if (m.contains("id") && m["id"] == id) return m;
      }
      std::this_thread::sleep_for(5ms);
    }
    return nullptr;
  }
  std::vector<Value> notifications() {
    std::lock_guard lock(mu);
    std::vector<Value> out;
    for (const Value& m : sent)
      if (!m.contains("id")) out.push_back(m);
    return out;
  }
  void request(int id, const std::string& method, Value params = Value::object()) {
    service.handle(Value{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}, send);
  }
};

Value modern_meta() {
  return Value{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
               {"io.modelcontextprotocol/clientCapabilities", Value::object()}};
}

}  // namespace

TEST_CASE("mcp server: initialize answers the client's 2025 revision, or 2025-11-25 for one it does not know",
          "[server][mcp]") {
  McpFixture f;
  f.request(1, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", Value::object()}});
  Value r = f.answer(1)["result"];
  CHECK(r["protocolVersion"] == "2025-06-18");
  CHECK(r["serverInfo"]["name"] == "engine");
  CHECK(r["capabilities"]["tools"]["listChanged"] == false);
  f.request(2, "initialize", {{"protocolVersion", "1999-01-01"}});
  CHECK(f.answer(2)["result"]["protocolVersion"] == "2025-11-25");
}

TEST_CASE("mcp server: server/discover and modern requests carry 2026-07-28's result fields", "[server][mcp]") {
  McpFixture f;
  f.request(1, "server/discover", {{"_meta", modern_meta()}});
  Value r = f.answer(1)["result"];
  CHECK(r["supportedVersions"] == Value::array({"2026-07-28"}));
  CHECK(r["resultType"] == "complete");
  CHECK(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "engine");
  f.request(2, "tools/list", {{"_meta", modern_meta()}});
  Value listed = f.answer(2)["result"];
  CHECK(listed["resultType"] == "complete");
  CHECK(listed["ttlMs"] == 0);
  f.request(3, "tools/list");
  CHECK_FALSE(f.answer(3)["result"].contains("resultType"));
}

TEST_CASE("mcp server: each workflow is a tool, its inputs the inputSchema and its outputs the outputSchema",
          "[server][mcp]") {
  McpFixture f;
  f.request(1, "tools/list");
  Value tools = f.answer(1)["result"]["tools"];
  REQUIRE(tools.size() == 2);
  Value shout = tools[0];
  CHECK(shout["name"] == "shout");
  CHECK(shout["description"] == "Shouts a text, then counts its words.");
  CHECK(shout["inputSchema"]["type"] == "object");
  CHECK(shout["inputSchema"]["required"] == Value::array({"text"}));
  CHECK(shout["inputSchema"]["properties"]["times"]["default"] == 1);
  // Every input typed: as its default is, else as text.
  CHECK(shout["inputSchema"]["properties"]["times"]["type"] == "integer");
  CHECK(shout["inputSchema"]["properties"]["text"]["type"] == "string");
  CHECK(shout["inputSchema"]["properties"]["pitch"]["type"] == "number");  // declared, over its default's
  // The declared outputs are the structured result, each required.
  CHECK(shout["outputSchema"]["type"] == "object");
  CHECK(shout["outputSchema"]["properties"]["loud"]["description"] == "The words, loud");
  CHECK(shout["outputSchema"]["required"] == Value::array({"loud"}));
  // A workflow that declares none answers text alone.
  CHECK_FALSE(tools[1].contains("outputSchema"));
  for (const auto& [name, property] : tools[1]["inputSchema"]["properties"].items()) CHECK(property.contains("type"));
}

TEST_CASE("mcp server: a call runs the workflow, reports each step as progress and answers text and structure",
          "[server][mcp]") {
  McpFixture f;
  f.request(1, "tools/call", {{"name", "shout"}, {"arguments", {{"text", "two words"}}},
                              {"_meta", {{"progressToken", "tok"}}}});
  Value r = f.answer(1)["result"];
  CHECK(r["isError"] == false);
  CHECK(r["content"][0]["type"] == "text");
  CHECK(r["content"][0]["text"] == "TWO WORDS");  // the first declared output is the answer
  CHECK(r["structuredContent"]["loud"] == "TWO WORDS");
  CHECK_FALSE(r["structuredContent"].contains("output"));
  std::vector<Value> progress = f.notifications();
  REQUIRE(progress.size() >= 2);
  int last = 0;
  for (const Value& p : progress) {
    CHECK(p["method"] == "notifications/progress");
    CHECK(p["params"]["progressToken"] == "tok");
    CHECK(p["params"]["progress"].get<int>() > last);  // increasing, as the protocol asks
    last = p["params"]["progress"].get<int>();
  }
  CHECK(progress.back()["params"]["message"] == "step count done");
}

TEST_CASE("mcp server: arguments that do not fit are the tool's error, an unknown tool a protocol error",
          "[server][mcp]") {
  McpFixture f;
  f.request(1, "tools/call", {{"name", "shout"}, {"arguments", {{"txet", "x"}}}});
  Value r = f.answer(1)["result"];
  CHECK(r["isError"] == true);
  CHECK(r["content"][0]["text"].get<std::string>().find("did you mean 'text'") != std::string::npos);
  f.request(2, "tools/call", {{"name", "nope"}, {"arguments", Value::object()}});
  CHECK(f.answer(2)["error"]["code"] == -32602);
  f.request(3, "tools/call", {{"name", "shout"}, {"arguments", "text"}});
  CHECK(f.answer(3)["error"]["code"] == -32602);
}

TEST_CASE("mcp server: a cancelled call stops its run and is not answered", "[server][mcp][cancel]") {
  McpFixture f;
  f.request(7, "tools/call", {{"name", "slow"}, {"arguments", {{"input", "x"}}}});
  REQUIRE(test::wait_until([&] { return f.slots.running() == 1; }));  // in flight: its model answers in 30 s
  f.service.handle(Value{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                         {"params", {{"requestId", 7}, {"reason", "the user gave up"}}}},
                   f.send);
  // Idle long before the model's answer, and nothing answered.
  CHECK(f.service.wait_idle(std::chrono::steady_clock::now() + 20s));
  CHECK(f.answer(7, 200ms).is_null());
}

TEST_CASE("mcp server: what is not MCP is answered with JSON-RPC's errors", "[server][mcp][hostile]") {
  McpFixture f;
  f.request(1, "resources/list");
  CHECK(f.answer(1)["error"]["code"] == -32601);
  f.service.handle(Value::array({1, 2}), f.send);
  f.service.handle(Value{{"jsonrpc", "1.0"}, {"id", 2}, {"method", "ping"}}, f.send);
  CHECK(f.answer(2)["error"]["code"] == -32600);
  f.request(3, "ping");
  CHECK(f.answer(3)["result"] == Value::object());
  CHECK(McpService::parse_error("bad")["error"]["code"] == -32700);
  // A notification is never answered, known or not.
  f.service.handle(Value{{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}}, f.send);
  f.service.handle(Value{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 99}}}},
                   f.send);
  std::lock_guard lock(f.mu);
  CHECK(f.sent.size() == 4);  // the array's error, 2's, 3's and 1's
}

TEST_CASE("mcp server: a 2026-07-28 request in a revision not spoken, or without its envelope's keys, is refused in-band",
          "[server][mcp]") {
  McpFixture f;
  Value other = modern_meta();
  other["io.modelcontextprotocol/protocolVersion"] = "2099-01-01";
  f.request(1, "tools/list", {{"_meta", other}});
  CHECK(f.answer(1)["error"] == Value{{"code", -32022}, {"message", "Unsupported protocol version: 2099-01-01"},
                                      {"data", {{"supported", Value::array({"2026-07-28"})}, {"requested", "2099-01-01"}}}});
  f.request(2, "tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}});
  CHECK(f.answer(2)["error"] == Value{{"code", -32602}, {"message", "the request's _meta envelope lacks or malforms "
                                                                    "io.modelcontextprotocol/clientCapabilities"}});
  f.request(3, "initialize", {{"_meta", modern_meta()}, {"protocolVersion", "2026-07-28"}});
  CHECK(f.answer(3)["error"]["code"] == -32601);
  // server/discover is 2026-07-28's alone: without the envelope's revision it is malformed, not a 2025 request.
  const Value no_revision = Value{{"code", -32602}, {"message", "server/discover is a request of 2026-07-28, and its "
                                                                "_meta envelope names no io.modelcontextprotocol/protocolVersion"}};
  f.request(4, "server/discover");
  CHECK(f.answer(4)["error"] == no_revision);
  Value unnamed = modern_meta();
  unnamed.erase("io.modelcontextprotocol/protocolVersion");
  f.request(5, "server/discover", {{"_meta", unnamed}});
  CHECK(f.answer(5)["error"] == no_revision);
}
