#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tools/tool.h"

namespace engine::tools {

// The tools of an executor, by name, in the order the workflow declares them.
class ToolRegistry {
 public:
  void add(std::shared_ptr<const Tool> tool);  // throws Error "tool.duplicate" for a name already present
  const Tool* find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<std::shared_ptr<const Tool>>& all() const { return tools_; }

 private:
  std::vector<std::shared_ptr<const Tool>> tools_;
};

}  // namespace engine::tools
