#pragma once
// What MCP 2026-07-28 asks a server to check of a request before it dispatches it: the revision its `_meta`
// envelope claims (-32022 naming the revisions served), the envelope's required keys (-32602), and, over Streamable
// HTTP, the standard headers that must mirror the body (SEP-2243: MCP-Protocol-Version, Mcp-Method, Mcp-Name;
// -32020 when missing or disagreeing) and the methods the revision has (HTTP 404, -32601). Over HTTP these are
// answered with HTTP 400 (404 for a method); over stdio in-band.
#include <optional>

#include "engine/core/value.h"
#include "engine/server/http_message.h"

namespace engine::server {

// The 2025 era's revisions a server answers initialize in, newest first.
inline constexpr const char* kMcpLegacyVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

inline constexpr int kMcpHeaderMismatch = -32020;
inline constexpr int kMcpUnsupportedVersion = -32022;

// The error object ({code, message, data?}) a request whose envelope names a revision the server does not speak,
// or lacks a key it must carry, gets; none for a request of the 2025 era (no envelope) or a sound one.
std::optional<Value> envelope_error(const Value& message);

// The whole answer to a request over HTTP that fails a check (envelope, headers, unknown method of 2026-07-28), or
// none when it may be dispatched.
std::optional<HttpResponse> mcp_http_refusal(const HttpRequest& request, const Value& message);

}  // namespace engine::server
