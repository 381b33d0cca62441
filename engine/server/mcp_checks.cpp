#include "engine/server/mcp_checks.h"

#include <algorithm>

#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/net/json_rpc.h"
#include "engine/server/mcp_service.h"

namespace engine::server {
namespace {

const char* const kEnvelopeVersion = "io.modelcontextprotocol/protocolVersion";
// 2026-07-28's methods the engine offers (`ping` and `initialize` are the 2025 era's: removed there).
const char* const kModernMethods[] = {"server/discover", "tools/list", "tools/call"};

Value error_object(int code, const std::string& message, Value data = nullptr) {
  Value e{{"code", code}, {"message", message}};
  if (!data.is_null()) e["data"] = std::move(data);
  return e;
}

HttpResponse refusal(int status, const Value& message, Value error) {
  return json_response(status, to_json_text(net::jsonrpc::make_error(field(message, "id"), std::move(error))));
}

// A header's value without the spaces and tabs HTTP allows around it (RFC 9110 5.5), or none.
std::optional<std::string> header_value(const HttpRequest& r, std::string_view name) {
  const std::string* v = r.header(name);
  if (!v) return std::nullopt;
  return std::string(trim(*v));
}

bool is_request(const Value& message) {
  const Value& id = field(message, "id");
  return id.is_string() || id.is_number_integer();
}

}  // namespace

std::optional<Value> envelope_error(const Value& message) {
  const Value& meta = field(field(message, "params"), "_meta");
  const Value& claimed = field(meta, kEnvelopeVersion);
  if (claimed.is_null()) {
    // A request of the 2025 era, but for server/discover: 2026-07-28's alone, so its envelope is owed (over stdio
    // nothing else says which revision a request is of).
    if (string_field(message, "method") != "server/discover") return std::nullopt;
    return error_object(-32602, "server/discover is a request of " + std::string(kMcpModernVersion) +
                                    ", and its _meta envelope names no io.modelcontextprotocol/protocolVersion");
  }
  std::string version = claimed.is_string() ? claimed.get<std::string>() : to_json_text(claimed);
  if (version != kMcpModernVersion)
    return error_object(kMcpUnsupportedVersion, "Unsupported protocol version: " + printable_excerpt(version, 40),
                        Value{{"supported", Value::array({kMcpModernVersion})},
                              {"requested", printable_excerpt(version, 40)}});  // never the client's bytes unbounded
  std::vector<std::string> missing;
  // The client's info may be left out; given, it names the client and its version.
  const Value& info = field(meta, "io.modelcontextprotocol/clientInfo");
  if (!info.is_null() && (!info.is_object() || !field(info, "name").is_string() || !field(info, "version").is_string()))
    missing.push_back("io.modelcontextprotocol/clientInfo");
  if (!field(meta, "io.modelcontextprotocol/clientCapabilities").is_object())
    missing.push_back("io.modelcontextprotocol/clientCapabilities");
  if (!missing.empty())
    return error_object(-32602, "the request's _meta envelope lacks or malforms " + join(missing, " and "));
  return std::nullopt;
}

std::optional<HttpResponse> mcp_http_refusal(const HttpRequest& r, const Value& message) {
  std::optional<std::string> header = header_value(r, "mcp-protocol-version");
  bool modern = !field(field(field(message, "params"), "_meta"), kEnvelopeVersion).is_null();
  std::string method = string_field(message, "method");
  if (!modern) {
    if (!header) return std::nullopt;
    if (*header == kMcpModernVersion)
      return refusal(400, message, error_object(-32602, "the MCP-Protocol-Version header names " +
                                                            std::string(kMcpModernVersion) +
                                                            ", and the request carries no _meta envelope"));
    bool known = std::any_of(std::begin(kMcpLegacyVersions), std::end(kMcpLegacyVersions), [&](const char* v) { return *header == v; });
    if (!known) {
      Value supported = Value::array({kMcpModernVersion});
      for (const char* v : kMcpLegacyVersions) supported.push_back(v);
      return refusal(400, message, error_object(kMcpUnsupportedVersion,
                                                "Unsupported protocol version: " + printable_excerpt(*header, 40),
                                                Value{{"supported", std::move(supported)}, {"requested", *header}}));
    }
    return std::nullopt;
  }
  // The header disagreeing with the body's claim comes first (it is how the request is classified), then a claim
  // of a revision not spoken, then the envelope's keys.
  const Value& claimed = field(field(field(message, "params"), "_meta"), kEnvelopeVersion);
  if (header && (!claimed.is_string() || *header != claimed.get<std::string>()))
    return refusal(400, message, error_object(kMcpHeaderMismatch, "the MCP-Protocol-Version header (" +
                                                                      printable_excerpt(*header, 40) +
                                                                      ") disagrees with the body's revision"));
  if (std::optional<Value> e = envelope_error(message)) return refusal(400, message, std::move(*e));
  std::optional<std::string> said_method = header_value(r, "mcp-method");
  if (said_method && *said_method != method)
    return refusal(400, message, error_object(kMcpHeaderMismatch, "the Mcp-Method header (" +
                                                                      printable_excerpt(*said_method, 60) +
                                                                      ") disagrees with the body's method"));
  if (!is_request(message)) return std::nullopt;  // a notification needs no standard headers
  if (!header) return refusal(400, message, error_object(kMcpHeaderMismatch, "the MCP-Protocol-Version header is missing"));
  if (!said_method) return refusal(400, message, error_object(kMcpHeaderMismatch, "the Mcp-Method header is missing"));
  if (std::find(std::begin(kModernMethods), std::end(kModernMethods), method) == std::end(kModernMethods))
    return refusal(404, message, error_object(-32601, "Method not found: " + printable_excerpt(method, 60)));
  if (method == "tools/call") {
    const Value& name = field(field(message, "params"), "name");
    std::optional<std::string> said_name = header_value(r, "mcp-name");
    if (!said_name) return refusal(400, message, error_object(kMcpHeaderMismatch, "the Mcp-Name header is missing"));
    if (!name.is_string() || *said_name != name.get<std::string>())
      return refusal(400, message, error_object(kMcpHeaderMismatch, "the Mcp-Name header (" +
                                                                        printable_excerpt(*said_name, 60) +
                                                                        ") disagrees with the tool the body names"));
  }
  return std::nullopt;
}

}  // namespace engine::server
