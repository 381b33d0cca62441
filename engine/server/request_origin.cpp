#include "engine/server/request_origin.h"

#include <algorithm>

#include "engine/core/text.h"
#include "engine/server/api_errors.h"

namespace engine::server {
namespace {

// "http://host:port" -> "host:port"; "" for what is not a web origin ("null", a path, a user name).
std::string_view origin_authority(std::string_view origin) {
  for (std::string_view scheme : {"http://", "https://"})
    if (origin.substr(0, scheme.size()) == scheme) {
      std::string_view rest = origin.substr(scheme.size());
      if (rest.empty() || rest.find_first_of("/@?#") != std::string_view::npos) return {};
      return rest;
    }
  return {};
}

bool same_text_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  return same_text_ignoring_case(host, "localhost") || host == "::1" || host.substr(0, 4) == "127.";
}

std::string_view host_name(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    return close == std::string_view::npos ? std::string_view() : authority.substr(1, close - 1);
  }
  return authority.substr(0, authority.find(':'));
}

std::optional<HttpResponse> refusal_by_origin(const HttpRequest& r, const OriginPolicy& policy) {
  const std::string* host = r.header("host");
  if (policy.local_hosts_only && (!host || !is_loopback_host(host_name(*host))))
    return error_response(403,
                          "this server answers only requests addressed to localhost: it listens on loopback without "
                          "tokens (give --token-file to serve other names)",
                          "host_not_local");
  const std::string* origin = r.header("origin");
  if (!origin) return std::nullopt;
  const auto& allowed = policy.allowed_origins;
  if (std::find(allowed.begin(), allowed.end(), "*") != allowed.end()) return std::nullopt;
  if (std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return same_text_ignoring_case(a, *origin); }))
    return std::nullopt;
  std::string_view authority = origin_authority(*origin);
  if (host && !authority.empty() && same_text_ignoring_case(authority, *host)) return std::nullopt;
  return error_response(403,
                        "requests from the web page at " + printable_excerpt(*origin, 200) +
                            " are not answered: only the server's own pages and the origins given with "
                            "--allow-origin may call it",
                        "origin_not_allowed");
}

HeaderList cross_origin_headers(const HttpRequest& r, const OriginPolicy& policy) {
  const std::string* origin = r.header("origin");
  if (!origin || policy.allowed_origins.empty()) return {};
  const std::string* host = r.header("host");
  std::string_view authority = origin_authority(*origin);
  if (host && !authority.empty() && same_text_ignoring_case(authority, *host)) return {};  // its own page needs none
  // Only what refusal_by_origin let through reaches here: an origin named, or any under "*".
  return {{"Access-Control-Allow-Origin", *origin}, {"Vary", "Origin"}};
}

HttpResponse preflight_response(const HttpRequest& r, const OriginPolicy& policy) {
  HttpResponse ok{204, cross_origin_headers(r, policy), ""};
  ok.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE");
  ok.headers.emplace_back("Access-Control-Allow-Headers",
                          "Authorization, Content-Type, Accept, Last-Event-ID, Mcp-Session-Id, MCP-Protocol-Version, "
                          "Mcp-Method, Mcp-Name, traceparent, tracestate, x-request-id");
  ok.headers.emplace_back("Access-Control-Expose-Headers", "Mcp-Session-Id, x-request-id");
  ok.headers.emplace_back("Access-Control-Max-Age", "600");
  return ok;
}

}  // namespace engine::server
