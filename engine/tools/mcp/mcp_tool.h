#pragma once
// A tool of an MCP server, typed like any other: its inputSchema is its parameters, so ReAct and tool-calling
// agents, tool steps and `engine tool` all use it. Calls go to the server the executor shares.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/tools/mcp/mcp_server.h"
#include "engine/tools/mcp/param_headers.h"
#include "engine/tools/tool.h"
#include "engine/tools/tool_source.h"

namespace engine::tools::mcp {

class McpTool : public Tool {
 public:
  // `name` is the tool's name here (the server's, after any prefix); `input` and `output` its compiled schemas,
  // empty when the engine cannot check them.
  // `header_params`: the arguments its inputSchema asks to be mirrored into headers (param_headers.h).
  McpTool(std::shared_ptr<const McpServer> server, ListedTool listed, std::string name,
          std::optional<schema::Schema> input, std::optional<schema::Schema> output,
          std::vector<HeaderParam> header_params = {});

  std::string kind() const override { return "mcp:" + server_->config().name; }
  Effect effect() const override { return effect_; }  // from the server's annotations
  std::unique_ptr<ToolInstance> instantiate(const ToolContext& context) const override;

  const McpServer& server() const { return *server_; }
  const std::string& remote_name() const { return remote_name_; }
  // `span_id`: the call's own span in a traced run (else empty), the parent of the server's span of it.
  // `idempotency_key`: a journaled call's (CallContext), sent in the request's _meta; "" for none.
  ToolResult call(const Value& input, const ToolContext& context, const std::string& span_id,
                  const std::string& idempotency_key = "") const;

 private:
  std::shared_ptr<const McpServer> server_;
  std::string remote_name_;
  Effect effect_;
  std::optional<schema::Schema> output_;
  std::vector<HeaderParam> header_params_;
};

struct ToolsetOptions {
  std::vector<std::string> allow;  // the tools to keep, by the server's names; empty: all of them
  std::string prefix;              // put before each name
  schema::SchemaOptions schema_options;
};

struct Toolset {
  std::vector<std::shared_ptr<const Tool>> tools;
  // One line naming the tools whose schemas the engine cannot check, and why; empty when it checks them all.
  std::string warning;
};

// An allowed name the server does not list: which one, for the build to point at it in the workflow's list.
class MissingToolError : public Error {
 public:
  MissingToolError(std::string message, std::string wanted)
      : Error(ErrorKind::McpUnknownTool, std::move(message)), tool(std::move(wanted)) {}
  std::string tool;
};

// The server's tools (started and listed now), those allowed, as tools. Throws MissingToolError for an
// allowed name the server does not list (unless not `strict`: a list that changed may have lost one), and the
// server's errors.
Toolset list_toolset(const std::shared_ptr<const McpServer>& server, const ToolsetOptions& options,
                     bool strict = true, const Cancel* cancel = nullptr);

// A server's tools as the runs see them: listed when made (at the build), and listed again by the first run that
// starts after the server says they changed (notifications/tools/list_changed); the others go on with the list
// they had meanwhile.
class McpToolset : public ToolSource {
 public:
  // Throws as list_toolset does.
  McpToolset(std::shared_ptr<const McpServer> server, ToolsetOptions options);
  std::shared_ptr<const ToolList> current(const Cancel* cancel) const override;
  const std::string& warning() const { return warning_; }  // the first listing's

 private:
  std::shared_ptr<const McpServer> server_;
  ToolsetOptions options_;
  std::string warning_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const ToolList> tools_;
  mutable uint64_t listed_at_ = 0;  // the server's count of changes when `tools_` was listed
  mutable bool listing_ = false;
};

}  // namespace engine::tools::mcp
