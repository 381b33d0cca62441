#pragma once
// One MCP server of an executor, shared by all its runs: started once, at the first need, and started again for
// the next call when it has died (the call that saw it die fails, naming what the server last said). Calls in
// flight share its one connection.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/fiber.h"
#include "engine/core/limits.h"
#include "engine/net/child_process.h"
#include "engine/net/io_threads.h"
#include "engine/tools/mcp/mcp_client.h"

namespace engine::tools::mcp {

struct McpServerConfig {
  std::string name;          // for messages and listings
  net::ProcessSpec process;  // stdio: the command (program empty for a server over HTTP)
  std::string url;           // Streamable HTTP
  std::vector<std::string> headers;    // "Name: value", sent with every request
  std::vector<std::string> root_uris;  // file:// URIs, offered to the server as its roots
  std::chrono::milliseconds timeout{60'000};  // each request's deadline, the opening handshake's too
  // What a server may send: one message's size, and how many tools it may list.
  size_t max_message_bytes = limits::kMcpLineBytes;
  size_t max_tools = 1000;
};

class McpServer {
 public:
  // `io`: the process's I/O threads: the watch on a stdio server's pipes, the transport of one over HTTP; none:
  // its own.
  McpServer(McpServerConfig config, std::shared_ptr<net::IoThreads> io);
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  const McpServerConfig& config() const { return config_; }

  // Its tools, as it lists them now (it is started when it is not running). Throws Error (mcp.*, process.*), its
  // message beginning "MCP server 'NAME': ", or the run's stop as it is.
  std::vector<ListedTool> list_tools(const Cancel* cancel = nullptr) const;
  // tools/call's result object. `wait.deadline`, when unset, is the configured timeout from now. Throws Error.
  Value call(const std::string& tool, const Value& arguments, CallWait wait) const;
  // What the server said of itself when it was last started; empty before.
  ServerInfo info() const;
  // How many times the server has said its tools changed (notifications/tools/list_changed).
  uint64_t tools_changes() const { return tools_changes_; }

 private:
  std::shared_ptr<McpClient> client(const CallWait& wait) const;  // the running one, or a new one
  Value call_once_more_if_lost(const std::string& tool, const Value& arguments, const CallWait& wait) const;
  // Runs `work`; an error from it leaves naming this server, once: its channel and client say only what it did.
  template <class F>
  auto naming_itself(const Cancel* cancel, F&& work) const -> decltype(work());
  std::shared_ptr<McpClient> start(const CallWait& wait) const;

  McpServerConfig config_;
  std::shared_ptr<net::IoThreads> io_;
  // The connection is the one thing here that changes: runs share it, and the first to find it gone replaces it.
  mutable std::mutex mu_;
  mutable Condition connected_;
  mutable bool connecting_ = false;
  mutable std::shared_ptr<McpClient> client_;
  mutable ServerInfo info_;
  mutable std::atomic<uint64_t> tools_changes_{0};
};

}  // namespace engine::tools::mcp
