#pragma once
// A Lua function that keeps nothing between calls: each call sees the script as loaded, as if in a sandbox of its
// own, so one loaded function is shared by every run and thread. A state a call left unchanged serves the next
// call (lua_state_pool.h); one it changed is closed. Output parsers written in Lua are these.
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "engine/core/value.h"
#include "engine/tools/capabilities.h"
#include "engine/tools/lua/lua_sandbox.h"
#include "engine/tools/lua/lua_state_pool.h"

namespace engine::tools::lua {

struct LuaFunctionConfig {
  std::filesystem::path file;  // resolved by spec/
  std::string display_path;    // the path as the user wrote it, for messages
  std::string entry;           // the script returns this function, or a table holding it under this name
  LuaLimits limits;
  Capabilities capabilities;   // what its grants open (grants.h); nothing by default
};

class LuaFunction {
 public:
  // Compiles the script and runs it once to check that it gives the function. Throws Error "lua.syntax" (located at
  // the script's line), "lua.load" or "io.read_failed".
  static std::shared_ptr<const LuaFunction> load(const LuaFunctionConfig& config);

  // Calls the function with `arguments` under the limits; nil comes back as null, tables as objects or arrays.
  // print and engine.log lines go to `log` (dropped when it is empty). Throws Error "lua.error" (the script's own
  // error), "lua.timeout", "lua.instruction_limit", "lua.memory_limit" or "lua.convert" (a value that is not JSON).
  Value call(std::span<const Value> arguments, const LuaSandbox::LogFn& log = nullptr) const;
  Value call(const Value& argument) const { return call(std::span(&argument, 1)); }

  // `bytecode`: the compiled chunk, loaded into each new state.
  LuaFunction(LuaFunctionConfig config, std::string bytecode);

  const LuaStatePool& states() const { return states_; }

 private:
  Capabilities capabilities_;
  mutable LuaStatePool states_;
};

}  // namespace engine::tools::lua
