#pragma once
// JSON-RPC 2.0 framing, shared by the MCP client (tools/mcp) and the MCP server (server/): the messages either side
// writes, what a message it reads is, and the standard error codes. Every message read is hostile: one that is none
// of the three kinds is Invalid, never an exception.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/value.h"

namespace engine::net::jsonrpc {

// JSON-RPC's error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

struct Incoming {
  enum class Kind { Response, Request, Notification, Invalid };
  Kind kind = Kind::Invalid;
  Value message;       // the whole message
  std::string method;  // a request's or notification's
};

// What `message` is: a response (an id, and a result or an error), a request (an id and a method), a notification (a
// method and no id), or Invalid.
Incoming classify(Value message);

Value make_request(int64_t id, std::string_view method, Value params);
Value make_notification(std::string_view method, Value params);
Value make_result(const Value& id, Value result);
Value make_error(const Value& id, int code, std::string_view message);
// The same with a whole error object ({code, message, data}).
Value make_error(const Value& id, Value error);

// A response's error as one line: "the server's message (code -32602)"; "" when the response has a result.
std::string error_text(const Value& response);

}  // namespace engine::net::jsonrpc
