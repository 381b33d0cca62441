// MCP over Streamable HTTP against a loopback server written for the test: a session the server forgets (404) is
// opened again and the call goes again once, a refusal quotes the server, and a stream closed before the answer is
// taken up again from its last event id.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <atomic>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/net/io_threads.h"
#include "engine/tools/mcp/mcp_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools::mcp;

namespace {

// A 2025-era server of one tool, `add`, that can forget its session, refuse, or cut its stream.
class SessionServer {
 public:
  SessionServer() {
    server_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) { post(req, res); });
    server_.Get("/mcp", [this](const httplib::Request& req, httplib::Response& res) { resume(req, res); });
    server_.Delete("/mcp", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    test::wait_until([&] { return server_.is_running(); }, 5000);
  }
  ~SessionServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

  std::atomic<int> sessions{0};
  std::atomic<bool> forget{false};    // the next request finds its session gone
  std::atomic<bool> refuse{false};    // answers 401
  std::atomic<bool> cut{false};       // a call's stream ends after a priming event; the answer comes on a GET
  std::string pending_answer;         // for the GET
  std::atomic<int> pings_answered{0};  // the server's ping requests the client answered
  // When set, the revisions the server speaks: discover is refused with HTTP 400 and -32022 naming them, and an
  // initialize in another is refused too.
  std::vector<std::string> speaks;
  std::vector<std::string> initialized_in;  // the revision of each initialize it was sent

 private:
  void post(const httplib::Request& req, httplib::Response& res) {
    if (refuse) {
      res.status = 401;
      res.set_content(R"({"error":"the token sk-abcdef0123456789 is not valid here"})", "application/json");
      return;
    }
    Value m = parse_json(req.body);
    std::string method = string_field(m, "method");
    if (method == "initialize") {
      std::string asked = string_field(m["params"], "protocolVersion");
      initialized_in.push_back(asked);
      if (!speaks.empty() && std::find(speaks.begin(), speaks.end(), asked) == speaks.end()) {
        res.status = 400;
        return res.set_content(R"({"jsonrpc":"2.0","id":)" + to_json_text(m["id"]) +
                                   R"(,"error":{"code":-32602,"message":"Unsupported protocol version"}})",
                               "application/json");
      }
      res.set_header("Mcp-Session-Id", "s" + std::to_string(++sessions));
      return json(res, m, Value{{"protocolVersion", speaks.empty() ? "2025-11-25" : asked}, {"capabilities", Value::object()},
                                {"serverInfo", {{"name", "session-server"}, {"version", "1"}}}});
    }
    if (!m.contains("method") && m.contains("result") && m["id"] == 99) {  // the client's answer to our ping
      ++pings_answered;
      res.status = 202;
      return;
    }
    if (!m.contains("id")) {
      res.status = 202;
      return;
    }
    if (method == "server/discover" && !speaks.empty()) {
      res.status = 400;
      Value refusal{{"jsonrpc", "2.0"}, {"id", m["id"]},
                    {"error", {{"code", -32022}, {"message", "Unsupported protocol version: 2026-07-28"},
                               {"data", {{"supported", speaks}, {"requested", "2026-07-28"}}}}}};
      return res.set_content(to_json_text(refusal), "application/json");
    }
    if (method == "server/discover") {
      res.status = 400;
      return res.set_content(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No session"}})",
                             "application/json");
    }
    if (req.get_header_value("Mcp-Session-Id") != "s" + std::to_string(sessions.load()) || forget.exchange(false)) {
      res.status = 404;
      return;
    }
    if (method == "tools/list")
      return json(res, m, Value{{"tools", {{{"name", "add"}, {"inputSchema", {{"type", "object"}}}}}}});
    const Value& args = m["params"]["arguments"];
    Value result{{"content", {{{"type", "text"}, {"text", std::to_string(args["a"].get<int>() + args["b"].get<int>())}}}}};
    if (args.contains("ping")) {  // asks the client something on the call's stream, then answers the call
      return res.set_content("data: {\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}\n\ndata: " +
                                 to_json_text(Value{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}}) + "\n\n",
                             "text/event-stream");
    }
    if (cut.exchange(false)) {
      pending_answer = to_json_text(Value{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}});
      return res.set_content("id: e1\nretry: 10\ndata:\n\n", "text/event-stream");
    }
    json(res, m, result);
  }
  void resume(const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Last-Event-ID") != "e1") {
      res.status = 405;
      return;
    }
    res.set_content("id: e2\ndata: " + pending_answer + "\n\n", "text/event-stream");
  }
  static void json(httplib::Response& res, const Value& m, Value result) {
    res.set_content(to_json_text(Value{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", std::move(result)}}),
                    "application/json");
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::string sum(const McpServer& server, int a, int b) {
  return server.call("add", Value{{"a", a}, {"b", b}}, {})["content"][0]["text"].get<std::string>();
}

}  // namespace

TEST_CASE("mcp http: a session the server forgot is opened again and the call goes again once", "[tools][mcp]") {
  SessionServer s;
  McpServer server(McpServerConfig{.name = "sessions", .url = s.url(), .timeout = std::chrono::milliseconds(5000)},
                   std::make_shared<net::IoThreads>());
  CHECK(server.list_tools().size() == 1);
  CHECK(sum(server, 2, 3) == "5");
  CHECK(s.sessions == 1);
  s.forget = true;
  CHECK(sum(server, 4, 5) == "9");  // the 404, a new session, the call again
  CHECK(s.sessions == 2);
  CHECK(sum(server, 1, 1) == "2");
  CHECK(s.sessions == 2);
}

TEST_CASE("mcp http: a stream closed before the answer is taken up again from its last event id", "[tools][mcp]") {
  SessionServer s;
  McpServer server(McpServerConfig{.name = "sessions", .url = s.url(), .timeout = std::chrono::milliseconds(5000)},
                   std::make_shared<net::IoThreads>());
  server.list_tools();
  s.cut = true;
  CHECK(sum(server, 20, 22) == "42");
}

TEST_CASE("mcp http: a refusal names the status and quotes the server", "[tools][mcp]") {
  SessionServer s;
  s.refuse = true;
  McpServer server(McpServerConfig{.name = "sessions", .url = s.url(), .timeout = std::chrono::milliseconds(5000)},
                   std::make_shared<net::IoThreads>());
  try {
    server.list_tools();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::McpRejected);
    CHECK(std::string(e.message()) ==
          "MCP server 'sessions': answered initialize with HTTP 401: {\"error\":\"the token sk-abcdef0123456789 is not "
          "valid here\"}");
  }
}

TEST_CASE("mcp http: a request the server makes on a call's stream is answered with a POST of its own",
          "[tools][mcp]") {
  SessionServer s;
  McpServer server(McpServerConfig{.name = "sessions", .url = s.url(), .timeout = std::chrono::milliseconds(5000)},
                   std::make_shared<net::IoThreads>());
  server.list_tools();
  Value r = server.call("add", Value{{"a", 1}, {"b", 2}, {"ping", true}}, {});
  CHECK(r["content"][0]["text"] == "3");
  test::wait_until([&] { return s.pings_answered != 0; }, 2000);
  CHECK(s.pings_answered == 1);
}

// An answer is POSTed on the I/O threads' one fiber thread: servers that ask the engine things add no thread each.
TEST_CASE("mcp http: the answers to several servers' requests add no thread per server", "[tools][mcp]") {
  SessionServer s;
  auto io = std::make_shared<net::IoThreads>();
  auto asked = [&](const std::string& name) {
    auto server = std::make_unique<McpServer>(
        McpServerConfig{.name = name, .url = s.url(), .timeout = std::chrono::milliseconds(5000)}, io);
    server->list_tools();
    CHECK(server->call("add", Value{{"a", 1}, {"b", 2}, {"ping", true}}, {})["content"][0]["text"] == "3");
    return server;
  };
  auto first = asked("first");
  REQUIRE(test::wait_until([&] { return s.pings_answered == 1; }, 5000));
  size_t threads = test::thread_count();
  auto second = asked("second");
  auto third = asked("third");
  REQUIRE(test::wait_until([&] { return s.pings_answered == 3; }, 5000));
  CHECK(test::thread_count() == threads);
}

TEST_CASE("mcp http: a 400 with -32022 naming the revisions the server speaks opens in the newest the engine speaks",
          "[tools][mcp]") {
  SessionServer s;
  s.speaks = {"2024-11-05", "2025-06-18", "2099-01-01"};
  McpServer server(McpServerConfig{.name = "older", .url = s.url(), .timeout = std::chrono::milliseconds(5000)},
                   std::make_shared<net::IoThreads>());
  CHECK(sum(server, 2, 3) == "5");
  CHECK(s.initialized_in == std::vector<std::string>{"2025-06-18"});  // once, in the revision named: no guess first
  CHECK(server.info().protocol_version == "2025-06-18");

  SessionServer alien;
  alien.speaks = {"2099-01-01"};
  McpServer none(McpServerConfig{.name = "alien", .url = alien.url(), .timeout = std::chrono::milliseconds(5000)},
                 std::make_shared<net::IoThreads>());
  try {
    none.list_tools();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::McpProtocol);
    CHECK(std::string(e.message()) ==
          "MCP server 'alien': speaks only protocol revisions 2099-01-01, none of which the engine speaks (it speaks "
          "2026-07-28 and 2025-11-25 back to 2024-11-05)");
  }
  CHECK(alien.initialized_in.empty());
}
