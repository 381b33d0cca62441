#include "engine/server/resource_metadata.h"

#include <algorithm>

#include "engine/core/json_text.h"
#include "engine/server/api_errors.h"

namespace engine::server {
namespace {

constexpr std::string_view kMetadataPath = "/.well-known/oauth-protected-resource";

// "http://HOST" as the client addressed the server (https when a proxy in front says it took TLS), or none when the
// Host header is missing or holds what a URL in a quoted header value must not.
std::optional<std::string> server_origin(const HttpRequest& r) {
  const std::string* host = r.header("host");
  if (!host || host->empty() || host->size() > 255) return std::nullopt;
  bool plain = std::all_of(host->begin(), host->end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
  });
  if (!plain) return std::nullopt;
  const std::string* proto = r.header("x-forwarded-proto");
  return std::string(proto && *proto == "https" ? "https://" : "http://") + *host;
}

// The resource a request is for: the MCP endpoint, or the server as a whole.
std::string_view resource_path(std::string_view request_path) {
  return request_path == "/mcp" || request_path == std::string(kMetadataPath) + "/mcp" ? "/mcp" : "";
}

}  // namespace

bool is_resource_metadata_path(std::string_view path) {
  return path == kMetadataPath || path == std::string(kMetadataPath) + "/mcp";
}

HttpResponse resource_metadata(const HttpRequest& r) {
  if (r.method != "GET" && r.method != "HEAD") {
    HttpResponse refused = error_response(405, "this endpoint takes GET");
    refused.headers.emplace_back("Allow", "GET");
    return refused;
  }
  std::optional<std::string> origin = server_origin(r);
  if (!origin) return error_response(400, "the request's Host header names no server this metadata can describe");
  Value doc{{"resource", *origin + std::string(resource_path(r.path))},
            {"bearer_methods_supported", Value::array({"header"})},
            {"resource_name", "engine serve"}};
  return json_response(200, to_json_text(doc));
}

std::string bearer_challenge(const HttpRequest& r) {
  std::optional<std::string> origin = server_origin(r);
  if (!origin) return "Bearer";
  std::string url = *origin + std::string(kMetadataPath) + std::string(resource_path(r.path));
  return "Bearer resource_metadata=\"" + url + "\"";
}

}  // namespace engine::server
