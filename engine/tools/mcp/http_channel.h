#pragma once
// An MCP server over Streamable HTTP: every message is a POST to one URL; the answer comes back as JSON or as a
// stream of server-sent events on that POST, with the request's progress notifications and the server's own
// requests before it. In the 2025 era the session the server opens (Mcp-Session-Id) is echoed on every request,
// and a 404 means it has ended: the connection is then gone, and the server starts the next call with a new
// session. In 2026-07-28 there is no session: each POST names its protocol, method and tool in headers, and
// closing a request's stream cancels it.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/fiber.h"
#include "engine/net/http_client.h"
#include "engine/tools/mcp/mcp_channel.h"

namespace engine::tools::mcp {

class HttpChannel : public McpChannel {
 public:
  // `headers` ("Name: value") go with every request. `server` names it in messages.
  HttpChannel(std::string url, std::vector<std::string> headers, std::string server, size_t max_message_bytes,
              ServerMessages messages);
  ~HttpChannel() override;  // ends the session (DELETE), briefly, if the server still has it

  Value request(std::string_view method, Value params, const CallWait& wait) override;
  void notify(std::string_view method, Value params, const CallWait& wait) override;
  bool alive() const override;
  bool lost_session() const override;

 private:
  // POSTs `message`; for a request, returns the response to `id` (from the JSON body or the event stream).
  Value post(const Value& message, const CallWait& wait, std::optional<int64_t> id);
  // Every request's headers: the workflow's, the session, and the protocol revision (the message's own, when it
  // carries 2026-07-28's envelope, which also names the method and the tool in headers of their own).
  std::vector<std::string> request_headers(const Value* message = nullptr) const;
  void handle(Incoming in, const CallWait& wait, std::optional<int64_t> id, std::optional<Value>& response);
  void answer(Value response);  // a POST of its own, beside the stream that asked

  net::HttpClient http_;
  std::string url_;
  std::vector<std::string> headers_;
  std::string server_;
  size_t max_message_;
  ServerMessages messages_;
  mutable std::mutex mu_;
  std::string session_;           // Mcp-Session-Id, once the server gave one
  std::string protocol_version_;  // MCP-Protocol-Version, once initialize has said it
  bool lost_ = false;             // the server answered 404 for the session
  int64_t next_id_ = 1;
  TaskGroup answers_;  // last: its tasks use the members above, and it waits for them
};

}  // namespace engine::tools::mcp
