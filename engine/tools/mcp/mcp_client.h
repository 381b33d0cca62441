#pragma once
// The client side of MCP over one channel: the opening, the tool list, tool calls. A dual-era client: it asks the
// server first in revision 2026-07-28 (`server/discover`; no handshake, every request carrying the protocol in its
// _meta), and falls back to 2025-11-25's handshake (`initialize`) when the server does not speak it, as every
// reference server on SDK 1.x does not; older revisions a server answers initialize with are accepted too.
#include <memory>
#include <string>
#include <vector>

#include "engine/core/limits.h"
#include "engine/tools/mcp/mcp_channel.h"

namespace engine::tools::mcp {

inline constexpr const char* kProtocolVersion = "2025-11-25";    // the 2025 era's newest
inline constexpr const char* kModernProtocolVersion = "2026-07-28";

struct ServerInfo {
  bool modern = false;  // 2026-07-28: no session, the protocol in each request
  std::string name;
  std::string version;
  std::string protocol_version;  // the revision the server chose
  std::string instructions;
};

// A tool as the server lists it.
struct ListedTool {
  std::string name;
  std::string title;
  std::string description;
  Value input_schema;   // an object schema
  Value output_schema;  // null when the tool declares none
  // Its annotations' hints (readOnlyHint, idempotentHint): what a resumed run may call again (docs/durability.md).
  // A server's word only: a hint it gets wrong costs a repeat it claimed was harmless.
  bool read_only = false;
  bool idempotent = false;
};

// The answer to a request from the server: roots/list with `root_uris` (file:// URIs), ping, and -32601 for
// anything else (sampling and elicitation are not offered).
Value answer_server_request(const net::jsonrpc::Incoming& request, const std::vector<std::string>& root_uris);

class McpClient {
 public:
  explicit McpClient(std::unique_ptr<McpChannel> channel) : channel_(std::move(channel)) {}

  // server/discover; when the server does not answer it as a 2026-07-28 server (an error, an HTTP 400, silence
  // until `probe_deadline`), initialize and notifications/initialized. Throws Error "mcp.protocol" when the server
  // refuses or answers with a revision the client does not speak; the channel's errors otherwise (a server that
  // goes away while asked is not asked again).
  ServerInfo open(bool offer_roots, const CallWait& wait, SteadyTime probe_deadline);
  // Every tool, page after page; throws Error "mcp.protocol" for a malformed list, "mcp.limit" past `max_tools`
  // tools or limits::kMcpPages pages.
  std::vector<ListedTool> list_tools(size_t max_tools, const CallWait& wait);
  // tools/call's result object. Throws Error "mcp.error" with the server's message for a JSON-RPC error (an
  // unknown tool, say), "mcp.protocol" for a result that is not an object.
  Value call_tool(const std::string& name, const Value& arguments, const CallWait& wait);

  McpChannel& channel() { return *channel_; }


 private:
  // Sends `method`, with the 2026-07-28 envelope in its _meta once the server speaks it, and returns its result;
  // throws for an error response, and for a result that asks for input the engine cannot give.
  // The request with the era's envelope and the trace context, and its response message as it came (an error too).
  Value exchange(std::string_view method, Value params, const CallWait& wait);
  // The same, its result: throws Error "mcp.error" for an error response, "mcp.protocol" for no result.
  Value call(std::string_view method, Value params, const CallWait& wait);
  ServerInfo initialize(bool offer_roots, const CallWait& wait, const std::string& version);
  Value envelope() const;

  std::unique_ptr<McpChannel> channel_;
  bool modern_ = false;
  bool offer_roots_ = false;
};

}  // namespace engine::tools::mcp
