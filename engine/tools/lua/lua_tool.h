#pragma once
// A tool written in Lua. The file returns a function(input) or a table {name=, description=, parameters=,
// run=function(input)}; `parameters` is the JSON Schema of its arguments, as a table.
#include <filesystem>
#include <memory>
#include <string>

#include "engine/tools/lua/lua_sandbox.h"
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
};

class LuaTool : public Tool {
 public:
  // Reads and compiles the script and runs it once to learn its name, description and parameters. Throws Error
  // "lua.syntax" (located at the script's line), "lua.load" (the script does not return a tool, or its parameters
  // are not a schema) or "io.read_failed".
  static std::shared_ptr<const LuaTool> load(const LuaToolConfig& config);

  std::string kind() const override { return "lua"; }
  std::unique_ptr<ToolInstance> instantiate(const ToolContext& context) const override;

  LuaTool(std::string name, std::string description, Value parameters, LuaToolConfig config, std::string bytecode)
      : Tool(std::move(name), std::move(description), std::move(parameters), config.schema_options),
        config_(std::move(config)),
        bytecode_(std::move(bytecode)) {}

 private:
  LuaToolConfig config_;
  std::string bytecode_;  // the host's own dump of the compiled chunk: compile once, load per run
};

}  // namespace engine::tools::lua
