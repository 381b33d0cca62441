#pragma once
// Tools implemented in C++ and named in YAML as `builtin: NAME`.
#include <memory>
#include <string>
#include <vector>

#include "engine/tools/granted_tools.h"
#include "engine/tools/tool.h"

namespace engine::tools {

// nullptr when there is no such built-in. `parameters` (a JSON Schema, or null) declares arguments for a built-in
// that takes any input (echo); throws Error "schema.invalid" when it is not a schema. Those that reach the world
// (granted_tools.h) take `granted`; the others refuse grants (Error "spec.conflict").
std::shared_ptr<const Tool> make_builtin_tool(const std::string& builtin, std::string name, std::string description,
                                              Value parameters = nullptr, const schema::SchemaOptions& options = {},
                                              const GrantedToolOptions& granted = {});
const std::vector<std::string>& builtin_tool_names();

}  // namespace engine::tools
