#pragma once
// A Lua function that keeps nothing between calls: each call gets a sandbox of its own, so one loaded function is
// shared by every run and thread. Output parsers written in Lua are these.
#include <filesystem>
#include <memory>
#include <string>

#include "engine/core/value.h"
#include "engine/tools/lua/lua_sandbox.h"

namespace engine::tools::lua {

struct LuaFunctionConfig {
  std::filesystem::path file;  // resolved by spec/
  std::string display_path;    // the path as the user wrote it, for messages
  std::string entry;           // the script returns this function, or a table holding it under this name
  LuaLimits limits;
};

class LuaFunction {
 public:
  // Compiles the script and runs it once to check that it gives the function. Throws Error "lua.syntax" (located at
  // the script's line), "lua.load" or "io.read_failed".
  static std::shared_ptr<const LuaFunction> load(const LuaFunctionConfig& config);

  // Calls the function with `argument` under the limits; nil comes back as null, tables as objects or arrays.
  // Throws Error "lua.error" (the script's own error), "lua.timeout", "lua.instruction_limit", "lua.memory_limit"
  // or "lua.convert" (a value that is not JSON).
  Value call(const Value& argument) const;

  LuaFunction(LuaFunctionConfig config, std::string bytecode)
      : config_(std::move(config)), bytecode_(std::move(bytecode)) {}

 private:
  LuaFunctionConfig config_;
  std::string bytecode_;
};

}  // namespace engine::tools::lua
