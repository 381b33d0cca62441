#pragma once
// The engine as an MCP server: each served workflow is a tool whose inputSchema is its inputs and whose
// structuredContent is its outputs. Speaks both eras of the protocol on one connection, as the official SDK v2
// server does: the 2025 era's `initialize` handshake (2025-11-25 and the revisions before it), and 2026-07-28's
// `server/discover` and per-request `_meta`. Transport-free: a message in, messages out through a callback, so the
// stdio loop (engine mcp) and POST /mcp share it.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/server/catalog.h"
#include "engine/server/metrics.h"
#include "engine/server/run_launcher.h"
#include "engine/server/served_run_sinks.h"

namespace engine::server {

inline constexpr const char* kMcpModernVersion = "2026-07-28";
inline constexpr const char* kMcpLegacyVersion = "2025-11-25";

class McpService {
 public:
  // Called from any thread (a run's fiber); each call one whole message, or null when a request will not be answered
  // (it was cancelled: the protocol has the server say nothing), so a transport waiting for its answer can end.
  using Send = std::function<void(const Value& message)>;
  using CatalogSource = std::function<std::shared_ptr<const Catalog>()>;

  // `observers`: where the tool calls' runs are traced and recorded (as command "mcp"), when anywhere.
  // Tool calls start as every run of the server does (`runs`: run_launcher.h).
  McpService(CatalogSource catalog, RunLauncher& runs, Metrics& metrics, ServerObservers observers = {});

  // One message from the client. A request is answered once through `send` (a tool call later, from its run's
  // fiber, after its progress notifications); a notification is acted on (a cancel) or ignored. A message that is
  // not JSON-RPC is answered with a JSON-RPC error. `parent` stops every run this message starts (the connection's
  // end, the server's shutdown).
  // `scope` tells apart the requests of different clients for `notifications/cancelled` (stdio has one client; each
  // HTTP request is its own scope, so a cancel reaches only calls of the same POST, and over HTTP a call is cancelled
  // by closing its stream). `traceparent`: the transport's trace context (POST /mcp's header), or null; a call's own
  // `params._meta.traceparent` comes first, as OpenTelemetry's MCP conventions carry it.
  void handle(Value message, const Send& send, const Cancel* parent = nullptr, const std::string& scope = "",
              const std::string* traceparent = nullptr);
  // A line that is not JSON at all.
  static Value parse_error(const std::string& why);

  // Until no tool call is running, or `deadline`.
  bool wait_idle(SteadyTime deadline) { return runs_.slots().wait_idle(deadline); }

 private:
  Value tool_list() const;
  void call_tool(const Value& id, const Value& params, bool modern, const Send& send, const Cancel* parent,
                 const std::string& scope, const std::string* traceparent);
  Value finish(Value result, bool modern) const;  // 2026-07-28's resultType and serverInfo on a result

  CatalogSource catalog_;
  RunLauncher& runs_;
  Metrics& metrics_;
  ServerObservers observers_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Cancel>> calls_;  // by the request id's JSON text: what a cancel stops
};

}  // namespace engine::server
