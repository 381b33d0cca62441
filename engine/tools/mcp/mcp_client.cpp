#include "engine/tools/mcp/mcp_client.h"

#include <algorithm>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::tools::mcp {
namespace {

// The revisions whose tools and messages this client reads as 2025-11-25's (they differ in what it does not use).
const char* const kKnownVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};  // newest first
constexpr int64_t kUnsupportedVersionCode = -32022;  // 2026-07-28: UnsupportedProtocolVersion, with data.supported

// The 2025-era revision to open with after `server/discover` was answered with `error`: when that is -32022 naming
// the revisions the server speaks, the newest of them the engine speaks too (never a guess it will refuse again);
// else the newest. Throws Error "mcp.protocol" when the server names none the engine speaks.
std::string legacy_revision(const Value& error) {
  const Value& code = field(error, "code");
  if (!code.is_number_integer() || code.get<int64_t>() != kUnsupportedVersionCode) return kProtocolVersion;
  const Value& supported = field(field(error, "data"), "supported");
  std::vector<std::string> named;
  if (supported.is_array())
    for (const Value& v : supported)
      if (v.is_string() && named.size() < 16) named.push_back(printable_excerpt(v.get<std::string>(), 40));
  for (const char* known : kKnownVersions)
    if (std::find(named.begin(), named.end(), known) != named.end()) return known;
  throw Error(ErrorKind::McpProtocol, "speaks only " + (named.empty() ? std::string("revisions it does not name")
                                                                          : "protocol revisions " + join(named, ", ")) +
                                  ", none of which the engine speaks (it speaks " + kModernProtocolVersion + " and " +
                                  kProtocolVersion + " back to 2024-11-05)");
}

}  // namespace

Value answer_server_request(const net::jsonrpc::Incoming& request, const std::vector<std::string>& root_uris) {
  const Value& id = request.message["id"];
  if (request.method == "ping") return net::jsonrpc::make_result(id, Value::object());
  if (request.method == "roots/list") {
    Value roots = Value::array();
    for (const auto& uri : root_uris) roots.push_back(Value{{"uri", uri}});
    return net::jsonrpc::make_result(id, Value{{"roots", std::move(roots)}});
  }
  return net::jsonrpc::make_error(id, net::jsonrpc::kMethodNotFound, "the engine does not offer " + request.method);
}

Value McpClient::envelope() const {
  Value capabilities = Value::object();
  if (offer_roots_) capabilities["roots"] = Value{{"listChanged", false}};
  return Value{{"io.modelcontextprotocol/protocolVersion", kModernProtocolVersion},
               {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)},
               {"io.modelcontextprotocol/clientInfo", {{"name", "engine"}, {"version", ENGINE_VERSION}}}};
}

Value McpClient::exchange(std::string_view method, Value params, const CallWait& wait) {
  if (modern_) {
    if (!params.is_object()) params = Value::object();
    Value& meta = params["_meta"];
    Value own = envelope();
    for (auto& [key, value] : own.items()) meta[key] = std::move(value);
  }
  if (!wait.traceparent.empty()) {
    if (!params.is_object()) params = Value::object();
    params["_meta"]["traceparent"] = wait.traceparent;
  }
  if (!wait.idempotency_key.empty()) {
    if (!params.is_object()) params = Value::object();
    params["_meta"]["idempotency-key"] = wait.idempotency_key;
  }
  return channel_->request(method, std::move(params), wait);
}

Value McpClient::call(std::string_view method, Value params, const CallWait& wait) {
  Value response = exchange(method, std::move(params), wait);
  if (std::string error = net::jsonrpc::error_text(response); !error.empty())
    throw Error(ErrorKind::McpError, "answered " + wait.what + " with an error: " + error);
  if (!response.is_object() || !field(response, "result").is_object())
    throw Error(ErrorKind::McpProtocol, "answered " + wait.what + " with a result that is not an object");
  Value& result = response["result"];
  // 2026-07-28: a server may answer that it needs input first (an elicitation); the engine offers none.
  if (std::string type = string_field(result, "resultType"); !type.empty() && type != "complete")
    throw Error(ErrorKind::McpError, "answered " + wait.what + " '" + type + "': it asks for input the engine cannot give");
  return std::move(result);
}

ServerInfo McpClient::initialize(bool offer_roots, const CallWait& wait, const std::string& version) {
  Value capabilities = Value::object();
  if (offer_roots) capabilities["roots"] = Value{{"listChanged", false}};
  Value params{{"protocolVersion", version},
               {"capabilities", std::move(capabilities)},
               {"clientInfo", {{"name", "engine"}, {"version", ENGINE_VERSION}}}};
  Value result = call("initialize", std::move(params), wait);
  ServerInfo info;
  info.protocol_version = string_field(result, "protocolVersion");
  const Value& server = field(result, "serverInfo");
  info.name = string_field(server, "name");
  info.version = string_field(server, "version");
  info.instructions = string_field(result, "instructions");
  if (std::none_of(std::begin(kKnownVersions), std::end(kKnownVersions),
                   [&](const char* v) { return info.protocol_version == v; }))
    throw Error(ErrorKind::McpProtocol, "answered initialize with protocol revision '" + info.protocol_version +
                                    "', which the engine does not speak (it speaks " + kModernProtocolVersion +
                                    " and " + kProtocolVersion + ")");
  channel_->notify("notifications/initialized", nullptr, wait);
  return info;
}

ServerInfo McpClient::open(bool offer_roots, const CallWait& wait, SteadyTime probe_deadline) {
  offer_roots_ = offer_roots;
  CallWait probe = wait;
  probe.what = "server/discover";
  if (!probe.deadline || probe_deadline < *probe.deadline) probe.deadline = probe_deadline;
  modern_ = true;
  Value response;
  try {
    response = exchange("server/discover", Value::object(), probe);
  } catch (const Error& e) {
    // A server that has gone is not asked again; one that is stopped (the run) neither. Anything else it answers
    // (an HTTP 400 without a JSON-RPC error, silence) says it is of the 2025 era.
    if (e.kind() == ErrorKind::McpClosed || family_of(e.kind()) == "run" || family_of(e.kind()) == "process") throw;
  }
  const Value& result = net::jsonrpc::error_text(response).empty() ? field(response, "result") : Value();
  const Value& versions = field(result, "supportedVersions");
  bool speaks_modern = versions.is_array() && std::any_of(versions.begin(), versions.end(), [](const Value& v) {
                         return v.is_string() && v.get<std::string>() == kModernProtocolVersion;
                       });
  if (!speaks_modern) {
    modern_ = false;
    CallWait opening = wait;
    opening.what = "initialize";
    return initialize(offer_roots, opening, legacy_revision(field(response, "error")));
  }
  ServerInfo info;
  info.modern = true;
  info.protocol_version = kModernProtocolVersion;
  const Value& server = field(field(result, "_meta"), "io.modelcontextprotocol/serverInfo");
  info.name = string_field(server, "name");
  info.version = string_field(server, "version");
  info.instructions = string_field(result, "instructions");
  return info;
}

std::vector<ListedTool> McpClient::list_tools(size_t max_tools, const CallWait& wait) {
  std::vector<ListedTool> tools;
  std::string cursor;
  for (size_t page = 0;; ++page) {
    if (page == limits::kMcpPages)
      throw Error(ErrorKind::McpLimit, "lists its tools on more than " + std::to_string(limits::kMcpPages) + " pages");
    Value params = Value::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    Value result = call("tools/list", std::move(params), wait);
    Value& listed = result["tools"];
    if (!listed.is_array()) throw Error(ErrorKind::McpProtocol, "answered tools/list without a list of tools");
    if (tools.size() + listed.size() > max_tools)
      throw Error(ErrorKind::McpLimit, "lists more than " + std::to_string(max_tools) +
                                   " tools; an agent cannot choose among so many");
    for (auto& t : listed) {
      ListedTool tool;
      tool.name = string_field(t, "name");
      if (tool.name.empty()) throw Error(ErrorKind::McpProtocol, "lists a tool without a name");
      tool.title = string_field(t, "title");
      tool.description = string_field(t, "description");
      tool.input_schema = std::move(t["inputSchema"]);
      if (!tool.input_schema.is_object())
        throw Error(ErrorKind::McpProtocol, "lists tool '" + tool.name + "' without an inputSchema object");
      if (t.contains("outputSchema")) tool.output_schema = std::move(t["outputSchema"]);
      if (auto a = t.find("annotations"); a != t.end() && a->is_object()) {
        auto hint = [&](const char* name) {
          auto h = a->find(name);
          return h != a->end() && h->is_boolean() && h->get<bool>();
        };
        tool.read_only = hint("readOnlyHint");
        tool.idempotent = hint("idempotentHint");
      }
      tools.push_back(std::move(tool));
    }
    cursor = string_field(result, "nextCursor");
    if (cursor.empty()) return tools;
  }
}

Value McpClient::call_tool(const std::string& name, const Value& arguments, const CallWait& wait) {
  Value params{{"name", name}, {"arguments", arguments.is_object() ? arguments : Value::object()}};
  return call("tools/call", std::move(params), wait);
}

}  // namespace engine::tools::mcp
