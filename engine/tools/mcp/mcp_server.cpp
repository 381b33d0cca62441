#include "engine/tools/mcp/mcp_server.h"

#include <exception>

#include "engine/core/error.h"
#include "engine/tools/mcp/http_channel.h"
#include "engine/tools/mcp/stdio_channel.h"

namespace engine::tools::mcp {
namespace {

constexpr std::chrono::milliseconds kProbeWait{10'000};

}  // namespace

McpServer::McpServer(McpServerConfig config, std::shared_ptr<net::IoThreads> io)
    : config_(std::move(config)), io_(io ? std::move(io) : std::make_shared<net::IoThreads>()) {}

McpServer::~McpServer() = default;

ServerInfo McpServer::info() const {
  std::lock_guard lock(mu_);
  return info_;
}

std::shared_ptr<McpClient> McpServer::start(const CallWait& wait) const {
  ServerMessages on_request{
      [roots = config_.root_uris](const net::jsonrpc::Incoming& request) { return answer_server_request(request, roots); },
      [this] { ++tools_changes_; }};
  std::unique_ptr<McpChannel> channel;
  if (config_.url.empty())
    channel = std::make_unique<StdioChannel>(config_.process, io_->pipes(), config_.max_message_bytes, on_request);
  else
    channel = std::make_unique<HttpChannel>(config_.url, config_.headers, config_.max_message_bytes, on_request, io_);
  auto client = std::make_shared<McpClient>(std::move(channel));
  CallWait opening = wait;
  opening.on_progress = nullptr;
  opening.headers.clear();  // a call's Mcp-Param-* belong to the call, not to the opening it triggers
  std::exception_ptr failed;
  try {
    // A server of the 2025 era that stays silent at the 2026 probe is asked the 2025 way after a few seconds.
    SteadyTime probe_deadline = std::chrono::steady_clock::now() + std::min(config_.timeout, kProbeWait);
    ServerInfo info = client->open(!config_.root_uris.empty(), opening, probe_deadline);
    std::lock_guard lock(mu_);
    info_ = std::move(info);
  } catch (...) {
    failed = std::current_exception();
  }
  if (failed) {
    client.reset();  // stops the server; outside the catch block, because stopping waits
    std::rethrow_exception(failed);
  }
  return client;
}

std::shared_ptr<McpClient> McpServer::client(const CallWait& wait) const {
  std::shared_ptr<McpClient> gone;  // a dead connection, let go of with no lock held: stopping it waits
  {
    std::unique_lock lock(mu_);
    for (;;) {
      if (client_ && client_->channel().alive()) return client_;
      if (!connecting_) break;
      if (wait.cancel && wait.cancel->stopped()) {
        lock.unlock();
        throw_stopped(*wait.cancel);
      }
      if (wait.deadline && std::chrono::steady_clock::now() >= *wait.deadline)
        throw Error(ErrorKind::McpTimeout, "did not start in time");
      connected_.wait_until(lock, wait.deadline);
    }
    connecting_ = true;
    gone = std::move(client_);
  }
  gone.reset();
  std::shared_ptr<McpClient> started;
  std::exception_ptr failed;
  try {
    started = start(wait);
  } catch (...) {
    failed = std::current_exception();
  }
  {
    std::lock_guard lock(mu_);
    connecting_ = false;
    client_ = started;
  }
  connected_.notify_all();
  if (failed) std::rethrow_exception(failed);
  return started;
}

template <class F>
auto McpServer::naming_itself(const Cancel* cancel, F&& work) const -> decltype(work()) {
  try {
    return work();
  } catch (const Error& e) {
    if (cancel && cancel->stopped()) throw;  // the run's stop, not the server's doing
    throw Error(e.kind(), "MCP server '" + config_.name + "': " + e.message(), e.loc(), e.source_line());
  }
}

std::vector<ListedTool> McpServer::list_tools(const Cancel* cancel) const {
  CallWait wait;
  wait.deadline = std::chrono::steady_clock::now() + config_.timeout;
  wait.cancel = cancel;
  wait.what = "tools/list";
  return naming_itself(cancel, [&] { return client(wait)->list_tools(config_.max_tools, wait); });
}

Value McpServer::call(const std::string& tool, const Value& arguments, CallWait wait) const {
  if (!wait.deadline) wait.deadline = std::chrono::steady_clock::now() + config_.timeout;
  if (wait.what.empty()) wait.what = "tools/call '" + tool + "'";
  return naming_itself(wait.cancel, [&] { return call_once_more_if_lost(tool, arguments, wait); });
}

Value McpServer::call_once_more_if_lost(const std::string& tool, const Value& arguments, const CallWait& wait) const {
  auto c = client(wait);
  std::exception_ptr failed;
  try {
    return c->call_tool(tool, arguments, wait);
  } catch (...) {
    failed = std::current_exception();
  }
  // A server over HTTP that forgot the session never saw the call: it goes again, once, in a new session.
  if (!c->channel().lost_session()) std::rethrow_exception(failed);
  c.reset();
  return client(wait)->call_tool(tool, arguments, wait);
}

}  // namespace engine::tools::mcp
