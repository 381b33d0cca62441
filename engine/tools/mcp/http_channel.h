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
#include "engine/core/limits.h"
#include "engine/net/http_client.h"
#include "engine/tools/mcp/mcp_channel.h"

namespace engine::tools::mcp {

class HttpChannel : public McpChannel {
 public:
  // `headers` ("Name: value") go with every request. Its errors say what the server did; the McpServer that owns it
  // puts the server's name before them.
  HttpChannel(std::string url, std::vector<std::string> headers, size_t max_message_bytes, ServerMessages messages,
              std::shared_ptr<net::IoThreads> io);
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
  void handle(net::jsonrpc::Incoming in, const CallWait& wait, std::optional<int64_t> id, std::optional<Value>& response);
  // POSTs an answer on a fiber of the I/O threads' (beside the stream that asked, whatever thread reads that
  // stream; no thread of the channel's own). A server asking faster than it is answered finds its requests beyond
  // limits::kMcpQueuedAnswers in flight dropped (they time out on its side).
  void answer(Value response);

  std::shared_ptr<net::IoThreads> io_;
  net::HttpClient http_;
  std::string url_;
  std::vector<std::string> headers_;
  size_t max_message_;
  ServerMessages messages_;
  mutable std::mutex mu_;
  std::string session_;           // Mcp-Session-Id, once the server gave one
  std::string protocol_version_;  // MCP-Protocol-Version, once initialize has said it
  bool lost_ = false;             // the server answered 404 for the session
  int64_t next_id_ = 1;
  std::mutex answers_mu_;
  Condition answered_;     // an answer's POST ended
  size_t answering_ = 0;   // answers being POSTed; the destructor waits for none
  bool closing_ = false;
};

}  // namespace engine::tools::mcp
