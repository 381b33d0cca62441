#pragma once
// Tools whose list can change while an executor lives: an MCP server that says its tools changed. A run asks for
// the list when it starts; the source lists again only after a change, one caller at a time, while the others go on
// with the list as it was.
#include <memory>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/tools/tool.h"

namespace engine::tools {

using ToolList = std::vector<std::shared_ptr<const Tool>>;

class ToolSource {
 public:
  virtual ~ToolSource() = default;
  // The tools now: the same list (the same pointer) until the source changes. Never throws: when listing again
  // fails, the last list stands (and is asked for again at the next change).
  virtual std::shared_ptr<const ToolList> current(const Cancel* cancel) const = 0;
};

}  // namespace engine::tools
