// JSON-RPC 2.0 framing, the one the MCP client and server share: what a message read is, and the messages written.
#include <catch2/catch.hpp>

#include "engine/core/json_parse.h"
#include "engine/net/json_rpc.h"

using namespace engine;
using namespace engine::net;

TEST_CASE("json-rpc: a message read is a response, a request, a notification, or invalid", "[net][jsonrpc]") {
  auto kind = [](const char* text) { return jsonrpc::classify(parse_json(text)).kind; };
  using Kind = jsonrpc::Incoming::Kind;
  CHECK(kind(R"({"jsonrpc": "2.0", "id": 1, "result": {}})") == Kind::Response);
  CHECK(kind(R"({"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "x"}})") == Kind::Response);
  CHECK(kind(R"({"jsonrpc": "2.0", "id": 2, "method": "ping"})") == Kind::Request);
  CHECK(kind(R"({"jsonrpc": "2.0", "method": "notifications/progress"})") == Kind::Notification);
  // Hostile or malformed: never an exception.
  CHECK(kind(R"({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}})") == Kind::Invalid);  // both
  CHECK(kind(R"({"jsonrpc": "2.0", "id": null, "method": "ping"})") == Kind::Invalid);       // an id that is none
  CHECK(kind(R"({"jsonrpc": "1.0", "id": 1, "result": {}})") == Kind::Invalid);
  CHECK(kind(R"([1, 2])") == Kind::Invalid);
  CHECK(kind("not json") == Kind::Invalid);
  CHECK(jsonrpc::classify(parse_json(R"({"jsonrpc": "2.0", "id": 3, "method": "tools/call"})")).method == "tools/call");
}

TEST_CASE("json-rpc: the messages written, and a response's error as one line", "[net][jsonrpc]") {
  CHECK(jsonrpc::make_request(7, "tools/list", nullptr) == Value{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/list"}});
  CHECK(jsonrpc::make_notification("notifications/cancelled", Value{{"requestId", 7}}) ==
        Value{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 7}}}});
  CHECK(jsonrpc::make_result("a", Value::object()) == Value{{"jsonrpc", "2.0"}, {"id", "a"}, {"result", Value::object()}});
  Value error = jsonrpc::make_error(1, jsonrpc::kInvalidParams, "no tool named 'x'");
  CHECK(error == Value{{"jsonrpc", "2.0"}, {"id", 1}, {"error", {{"code", -32602}, {"message", "no tool named 'x'"}}}});
  CHECK(jsonrpc::error_text(error) == "no tool named 'x' (code -32602)");
  CHECK(jsonrpc::error_text(jsonrpc::make_result(1, Value::object())) == "");
  CHECK(jsonrpc::error_text(Value{{"error", {{"code", "odd"}}}}) == "an error without a message");
  CHECK(jsonrpc::make_error(nullptr, Value{{"code", -32022}, {"message", "m"}, {"data", {{"supported", {"v"}}}}}) ==
        Value{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32022}, {"message", "m"}, {"data", {{"supported", {"v"}}}}}}});
}
