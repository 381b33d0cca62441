#include "engine/tools/lua/lua_function.h"

#include <lua.hpp>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/tools/lua/lua_chunk.h"
#include "engine/tools/lua/lua_json.h"

namespace engine::tools::lua {
namespace {

// Replaces what the chunk returned with the entry function; false when there is none, leaving what it returned.
bool push_entry(lua_State* L, const std::string& entry) {
  if (lua_isfunction(L, -1)) return true;
  if (!lua_istable(L, -1)) return false;
  if (lua_getfield(L, -1, entry.c_str()) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return false;
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, entry.c_str());
  lua_remove(L, -2);
  return lua_isfunction(L, -1);
}

}  // namespace

std::shared_ptr<const LuaFunction> LuaFunction::load(const LuaFunctionConfig& config) {
  std::string bytecode = compile_chunk(read_file(config.file), config.display_path);
  LuaSandbox sandbox(config.limits, config.file.parent_path(), nullptr);
  lua_State* L = sandbox.state();
  auto outcome = run_chunk(sandbox, bytecode, config.display_path);
  if (!outcome.ok) throw Error("lua.load", "loading the script failed: " + outcome.message, SourceLoc{config.display_path});
  if (!push_entry(L, config.entry))
    throw Error("lua.load",
                "the script must return a function, or a table with a '" + config.entry + "' function; it returned " +
                    (lua_istable(L, -1) ? "a table without one" : std::string(luaL_typename(L, -1))),
                SourceLoc{config.display_path});
  return std::make_shared<LuaFunction>(config, std::move(bytecode));
}

Value LuaFunction::call(const Value& argument) const {
  LuaSandbox sandbox(config_.limits, config_.file.parent_path(), nullptr);
  lua_State* L = sandbox.state();
  auto outcome = run_chunk(sandbox, bytecode_, config_.display_path);
  if (outcome.ok && !push_entry(L, config_.entry))
    outcome = {false, "lua.error", "the script no longer returns its '" + config_.entry + "' function"};
  if (outcome.ok) {
    push_value(L, argument);
    outcome = sandbox.call(1, 1);
  }
  if (!outcome.ok) throw Error(outcome.error_kind, outcome.message);
  Value out = lua_isnil(L, -1) ? Value() : to_value(L, -1);
  lua_pop(L, 1);
  return out;
}

}  // namespace engine::tools::lua
