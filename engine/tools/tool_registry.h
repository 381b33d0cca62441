#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tools/tool.h"
#include "engine/tools/tool_source.h"

namespace engine::tools {

// The tools of an executor, by name, in the order the workflow declares them.
class ToolRegistry {
 public:
  // Throws Error "tool.duplicate" for a name already present. `origin` is where it was declared: the index of the
  // workflow's tools entry (one entry, an MCP server, may give many tools).
  void add(std::shared_ptr<const Tool> tool, size_t origin = 0);
  const Tool* find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<std::shared_ptr<const Tool>>& all() const { return tools_; }
  size_t origin(size_t index) const { return origins_[index]; }
  // The source of the tools entry at `origin` whose list may change (an MCP server's), or null.
  void add_source(size_t origin, std::shared_ptr<const ToolSource> source);
  std::shared_ptr<const ToolSource> source(size_t origin) const;

 private:
  std::vector<std::shared_ptr<const Tool>> tools_;
  std::vector<size_t> origins_;
  std::vector<std::pair<size_t, std::shared_ptr<const ToolSource>>> sources_;
};

}  // namespace engine::tools
