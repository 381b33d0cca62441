#pragma once
// The client side of MCP over one channel: the opening handshake, the tool list, tool calls. Protocol revision
// 2025-11-25 (what every reference server speaks), accepting the older revisions a server may answer with.
#include <memory>
#include <string>
#include <vector>

#include "engine/tools/mcp/mcp_channel.h"

namespace engine::tools::mcp {

inline constexpr const char* kProtocolVersion = "2025-11-25";

struct ServerInfo {
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
};

// The answer to a request from the server: roots/list with `root_uris` (file:// URIs), ping, and -32601 for
// anything else (sampling and elicitation are not offered).
Value answer_server_request(const Incoming& request, const std::vector<std::string>& root_uris);

class McpClient {
 public:
  explicit McpClient(std::unique_ptr<McpChannel> channel) : channel_(std::move(channel)) {}

  // initialize, then notifications/initialized. Throws Error "mcp.protocol" when the server refuses or answers
  // with a revision the client does not speak; the channel's errors otherwise.
  ServerInfo initialize(bool offer_roots, const CallWait& wait);
  // Every tool, page after page; throws Error "mcp.protocol" for a malformed list, "mcp.limit" past `max_tools`
  // tools or kMaxPages pages.
  std::vector<ListedTool> list_tools(size_t max_tools, const CallWait& wait);
  // tools/call's result object. Throws Error "mcp.error" with the server's message for a JSON-RPC error (an
  // unknown tool, say), "mcp.protocol" for a result that is not an object.
  Value call_tool(const std::string& name, const Value& arguments, const CallWait& wait);

  McpChannel& channel() { return *channel_; }

  static constexpr size_t kMaxPages = 100;

 private:
  Value result_of(Value response, const CallWait& wait);  // throws for an error response

  std::unique_ptr<McpChannel> channel_;
};

}  // namespace engine::tools::mcp
