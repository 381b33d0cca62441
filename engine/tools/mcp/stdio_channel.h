#pragma once
// An MCP server as a child process: one JSON-RPC message per line on its stdin and stdout (the stdio transport).
// The lines it writes are read by the descriptor watch's thread, which hands each answer to the call waiting for it
// (by id) and answers the server's own requests; callers take turns to write, so one line is never cut by another.
// No lock is held while anyone waits.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/fiber.h"
#include "engine/net/child_process.h"
#include "engine/net/descriptor_watch.h"
#include "engine/tools/mcp/mcp_channel.h"

namespace engine::tools::mcp {

class StdioChannel : public McpChannel {
 public:
  // Starts the server; throws Error "process.spawn" when it cannot be. Its errors say what the server did; the
  // McpServer that owns it puts the server's name before them.
  StdioChannel(const net::ProcessSpec& spec, net::DescriptorWatch& watch, size_t max_message_bytes,
               ServerMessages messages);
  ~StdioChannel() override;  // stops the server: stdin closed, then SIGTERM, then SIGKILL

  Value request(std::string_view method, Value params, const CallWait& wait) override;
  void notify(std::string_view method, Value params, const CallWait& wait) override;
  bool alive() const override;

 private:
  struct Pending {
    Condition changed;
    std::optional<Value> response;
    std::string broken;  // why what answered it cannot be read (invalid UTF-8): the call fails with mcp.protocol
    std::vector<Value> progress;  // notifications/progress params not yet handed to the caller
  };
  void on_line(std::string_view line);     // the watch's thread
  void on_end(const std::string& why);     // the watch's thread
  void send(const Value& message, const CallWait& wait);
  void answer(const Value& response);      // the watch's thread: written now if it can be, else by the next send
  [[noreturn]] void throw_closed(const CallWait& wait);  // with mu_ not held
  void tell_cancelled(int64_t id, const std::string& reason);

  size_t max_message_;
  ServerMessages messages_;
  mutable std::mutex mu_;
  Condition write_turn_;
  bool writing_ = false;
  std::string outbox_;  // answers to the server's requests that could not be written at once
  std::unordered_map<int64_t, Pending*> pending_;
  int64_t next_id_ = 1;
  bool closed_ = false;
  std::string closed_why_;
  std::unique_ptr<net::ChildProcess> process_;  // last: stopped before the members its reader uses go
};

}  // namespace engine::tools::mcp
