#pragma once
// OAuth 2.0 Protected Resource Metadata (RFC 9728) for a server with tokens: what an MCP client that speaks OAuth
// reads first (MCP's authorization, 2025-06-18 on). The server's tokens are static bearer tokens, given to the
// client by its operator, not issued by an authorization server: the metadata names the bearer scheme and no
// authorization server, so such a client learns at once that it needs a token given to it (docs/serve.md, "Tokens").
#include <optional>
#include <string>
#include <string_view>

#include "engine/server/http_message.h"

namespace engine::server {

// Where the metadata is served: the server's own and, for a client of /mcp, that resource's.
bool is_resource_metadata_path(std::string_view path);

// The answer to GET /.well-known/oauth-protected-resource[/mcp]: {resource, bearer_methods_supported,
// resource_name}; 405 for another method.
HttpResponse resource_metadata(const HttpRequest& request);

// The WWW-Authenticate value of a 401 for `request`: "Bearer resource_metadata=\"URL\"", or plain "Bearer" when the
// request's Host cannot be quoted (a name with other than letters, digits, '.', '-', ':', '[' and ']').
std::string bearer_challenge(const HttpRequest& request);

}  // namespace engine::server
