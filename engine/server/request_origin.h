#pragma once
// Which requests a server answers, by the names they carry of where they come from (docs/security.md, "Web pages
// and DNS rebinding"). A web page the user opens can send requests to a server on this machine: its own name
// rebound to 127.0.0.1 (then its Host header names the page's site), or straight to http://127.0.0.1:PORT (then its
// Origin header names the page's site). MCP's Streamable HTTP transport (2025-11-25) requires a 403 for an Origin
// that is not allowed; every route of `engine serve` checks, before any other work.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server/http_message.h"

namespace engine::server {

// Whether `host` (an address or a name, without port or brackets) is this machine's: localhost, 127.x, ::1.
bool is_loopback_host(std::string_view host);

// The name a Host header (or an origin's authority) gives, without its port and brackets: "localhost", "::1".
std::string_view host_name(std::string_view authority);

struct OriginPolicy {
  // A server on loopback without tokens is anyone's on this machine, so it answers only requests whose Host names
  // this machine: a page that rebinds its own name to 127.0.0.1 still sends that name.
  bool local_hosts_only = false;
  // Origins a browser page may call from besides the server's own (--allow-origin: "https://app.example.com");
  // "*" allows every origin (deliberate exposure).
  std::vector<std::string> allowed_origins;
};

// The 403 a request gets for its Host or its Origin, or none when it may be answered. A request without an Origin
// header (curl, SDKs, servers) is judged by its Host alone; one with an Origin is answered when that origin is the
// server's own (its authority is the request's Host) or allowed.
std::optional<HttpResponse> refusal_by_origin(const HttpRequest& request, const OriginPolicy& policy);

// For a request from a page of an origin --allow-origin names (not the server's own): the CORS headers its answer
// carries so that the page may read it (Access-Control-Allow-Origin: that origin, Vary: Origin). Empty otherwise.
HeaderList cross_origin_headers(const HttpRequest& request, const OriginPolicy& policy);

// The answer to a browser's preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin: 204 with
// the methods and headers the API takes.
HttpResponse preflight_response(const HttpRequest& request, const OriginPolicy& policy);

}  // namespace engine::server
