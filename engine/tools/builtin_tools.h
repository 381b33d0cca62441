#pragma once
// Tools implemented in C++ and named in YAML as `builtin: NAME`.
#include <memory>
#include <string>
#include <vector>

#include "engine/tools/tool.h"

namespace engine::tools {

// nullptr when there is no such built-in.
std::shared_ptr<const Tool> make_builtin_tool(const std::string& builtin, std::string name, std::string description);
const std::vector<std::string>& builtin_tool_names();

}  // namespace engine::tools
