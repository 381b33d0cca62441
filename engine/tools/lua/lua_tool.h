#pragma once
// A tool written in Lua. The file returns a function(input) or a table {name=, description=, parameters=,
// run=function(input)}; `parameters` is the JSON Schema of its arguments, as a table.
#include <filesystem>
#include <memory>
#include <string>

#include "engine/tools/capabilities.h"
#include "engine/tools/lua/lua_sandbox.h"
#include "engine/tools/lua/lua_state_pool.h"
#include "engine/tools/tool.h"

namespace engine::tools::lua {

struct LuaToolConfig {
  std::filesystem::path file;  // resolved by spec/
  std::string display_path;    // the path as the user wrote it, for messages
  std::string name;            // overrides the script's own name when not empty
  std::string description;     // likewise
  Value parameters;            // likewise (a JSON Schema), when not null
  schema::SchemaOptions schema_options;
  LuaLimits limits;
  Capabilities capabilities;  // what its grants open (grants.h); nothing by default
};

class LuaTool : public Tool {
 public:
  // Reads and compiles the script and runs it once to learn its name, description and parameters. Throws Error
  // "lua.syntax" (located at the script's line), "lua.load" (the script does not return a tool, or its parameters
  // are not a schema) or "io.read_failed".
  static std::shared_ptr<const LuaTool> load(const LuaToolConfig& config);

  std::string kind() const override { return "lua"; }
  // A script reaches the world only through its grants: with none that write, a call changes nothing.
  Effect effect() const override { return capabilities_->can_write() ? Effect::Once : Effect::Read; }
  std::unique_ptr<ToolInstance> instantiate(const ToolContext& context) const override;

  // `bytecode`: the host's own dump of the compiled chunk: compiled once, loaded into each new state.
  LuaTool(std::string name, std::string description, Value parameters, LuaToolConfig config, std::string bytecode);

  // The states of this tool's script that runs share (lua_state_pool.h); shared with instances, which may outlive
  // the tool.
  const LuaStatePool& states() const { return *states_; }
  const Capabilities& capabilities() const { return *capabilities_; }

 private:
  std::shared_ptr<const Capabilities> capabilities_;  // shared with instances, which may outlive the tool
  std::shared_ptr<LuaStatePool> states_;
};

}  // namespace engine::tools::lua
