#pragma once
// A tool of an MCP server, typed like any other: its inputSchema is its parameters, so ReAct and tool-calling
// agents, tool steps and `engine tool` all use it. Calls go to the server the executor shares.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/tools/mcp/mcp_server.h"
#include "engine/tools/tool.h"

namespace engine::tools::mcp {

class McpTool : public Tool {
 public:
  // `name` is the tool's name here (the server's, after any prefix); `input` and `output` its compiled schemas,
  // empty when the engine cannot check them.
  McpTool(std::shared_ptr<const McpServer> server, ListedTool listed, std::string name,
          std::optional<schema::Schema> input, std::optional<schema::Schema> output);

  std::string kind() const override { return "mcp:" + server_->config().name; }
  std::unique_ptr<ToolInstance> instantiate(const ToolContext& context) const override;

  const McpServer& server() const { return *server_; }
  const std::string& remote_name() const { return remote_name_; }
  ToolResult call(const Value& input, const ToolContext& context) const;

 private:
  std::shared_ptr<const McpServer> server_;
  std::string remote_name_;
  std::optional<schema::Schema> output_;
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

// The server's tools (started and listed now), those allowed, as tools. Throws Error "mcp.unknown_tool" for an
// allowed name the server does not list, "mcp.bad_tool" for a name no model could call, and the server's errors.
Toolset list_toolset(const std::shared_ptr<const McpServer>& server, const ToolsetOptions& options);

}  // namespace engine::tools::mcp
