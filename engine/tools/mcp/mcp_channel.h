#pragma once
// How the client reaches an MCP server: a request and its response per caller, many callers at once (the runs of a
// batch share one server). Over stdio the answers of every call in flight come back on one pipe; over Streamable
// HTTP each call is its own POST. Either way the caller waits as a fiber waits, giving its thread up.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/core/value.h"
#include "engine/net/json_rpc.h"

namespace engine::tools::mcp {

struct CallWait {
  std::optional<SteadyTime> deadline;
  const Cancel* cancel = nullptr;
  // The `notifications/progress` params of this request, given while the caller waits (on its fiber, or on the
  // thread that reads its answer while the caller is parked); when set, the request asks for them (a progressToken
  // in its _meta).
  std::function<void(const Value& params)> on_progress;
  std::string what;  // for messages: "tools/call 'read_file'"
  std::string traceparent;  // the W3C trace context the request carries in its _meta, when the run is traced
  // A journaled call's idempotency key (tools/tool.h CallContext), carried in its _meta as `idempotency-key`.
  std::string idempotency_key;
  // Header lines a request over HTTP carries besides the transport's own: a call's Mcp-Param-* (param_headers.h).
  std::vector<std::string> headers;
};

// What the client does with what the server sends unasked, on the thread that reads the server (neither may wait):
// answer its requests (roots/list, ping) with a response message, and hear that its tools changed.
struct ServerMessages {
  std::function<Value(const net::jsonrpc::Incoming& request)> on_request;
  std::function<void()> on_tools_changed;
};

class McpChannel {
 public:
  virtual ~McpChannel() = default;

  // Sends `method` and returns its response message (a result or an error). Throws Error "mcp.timeout" at the
  // deadline and as throw_stopped when the wait's cancel stops (the server is told: notifications/cancelled, or a
  // closed stream), "mcp.closed" when the server has gone (naming why, with its last lines on stderr),
  // "mcp.protocol" for an answer that is not one.
  virtual Value request(std::string_view method, Value params, const CallWait& wait) = 0;
  // Sends a notification; throws as request() does.
  virtual void notify(std::string_view method, Value params, const CallWait& wait) = 0;
  // False once the server has gone: the next call needs a new channel.
  virtual bool alive() const = 0;
  // Whether it is gone because the server forgot the session (HTTP's 404): the call that saw it did not reach the
  // server, and may be sent again on a new connection.
  virtual bool lost_session() const { return false; }
};

}  // namespace engine::tools::mcp
