#include "engine/tools/mcp/mcp_client.h"

#include <algorithm>

#include "engine/core/error.h"

namespace engine::tools::mcp {
namespace {

// The revisions whose tools and messages this client reads as 2025-11-25's (they differ in what it does not use).
const char* const kKnownVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

}  // namespace

Value answer_server_request(const Incoming& request, const std::vector<std::string>& root_uris) {
  const Value& id = request.message["id"];
  if (request.method == "ping") return make_result(id, Value::object());
  if (request.method == "roots/list") {
    Value roots = Value::array();
    for (const auto& uri : root_uris) roots.push_back(Value{{"uri", uri}});
    return make_result(id, Value{{"roots", std::move(roots)}});
  }
  return make_error(id, kMethodNotFound, "the engine does not offer " + request.method);
}

Value McpClient::result_of(Value response, const CallWait& wait) {
  if (std::string error = error_text(response); !error.empty())
    throw Error("mcp.error", wait.what + " failed: " + error);
  Value& result = response["result"];
  if (!result.is_object()) throw Error("mcp.protocol", wait.what + " was answered with a result that is not an object");
  return std::move(result);
}

ServerInfo McpClient::initialize(bool offer_roots, const CallWait& wait) {
  Value capabilities = Value::object();
  if (offer_roots) capabilities["roots"] = Value{{"listChanged", false}};
  Value params{{"protocolVersion", kProtocolVersion},
               {"capabilities", std::move(capabilities)},
               {"clientInfo", {{"name", "engine"}, {"version", ENGINE_VERSION}}}};
  Value result = result_of(channel_->request("initialize", std::move(params), wait), wait);
  ServerInfo info;
  info.protocol_version = string_field(result, "protocolVersion");
  const Value& server = field(result, "serverInfo");
  info.name = string_field(server, "name");
  info.version = string_field(server, "version");
  info.instructions = string_field(result, "instructions");
  if (std::none_of(std::begin(kKnownVersions), std::end(kKnownVersions),
                   [&](const char* v) { return info.protocol_version == v; }))
    throw Error("mcp.protocol", "the server answered initialize with protocol revision '" + info.protocol_version +
                                    "', which the engine does not speak (it speaks " + kProtocolVersion + ")");
  channel_->notify("notifications/initialized", nullptr, wait);
  return info;
}

std::vector<ListedTool> McpClient::list_tools(size_t max_tools, const CallWait& wait) {
  std::vector<ListedTool> tools;
  std::string cursor;
  for (size_t page = 0;; ++page) {
    if (page == kMaxPages)
      throw Error("mcp.limit", "the server's tool list goes on past " + std::to_string(kMaxPages) + " pages");
    Value params = Value::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    Value result = result_of(channel_->request("tools/list", std::move(params), wait), wait);
    Value& listed = result["tools"];
    if (!listed.is_array()) throw Error("mcp.protocol", "the server's tools/list result has no list of tools");
    if (tools.size() + listed.size() > max_tools)
      throw Error("mcp.limit", "the server lists more than " + std::to_string(max_tools) +
                                   " tools; an agent cannot choose among so many");
    for (auto& t : listed) {
      ListedTool tool;
      tool.name = string_field(t, "name");
      if (tool.name.empty()) throw Error("mcp.protocol", "the server lists a tool without a name");
      tool.title = string_field(t, "title");
      tool.description = string_field(t, "description");
      tool.input_schema = std::move(t["inputSchema"]);
      if (!tool.input_schema.is_object())
        throw Error("mcp.protocol", "the server's tool '" + tool.name + "' has no inputSchema object");
      if (t.contains("outputSchema")) tool.output_schema = std::move(t["outputSchema"]);
      tools.push_back(std::move(tool));
    }
    cursor = string_field(result, "nextCursor");
    if (cursor.empty()) return tools;
  }
}

Value McpClient::call_tool(const std::string& name, const Value& arguments, const CallWait& wait) {
  Value params{{"name", name}, {"arguments", arguments.is_object() ? arguments : Value::object()}};
  return result_of(channel_->request("tools/call", std::move(params), wait), wait);
}

}  // namespace engine::tools::mcp
