#include "engine/tools/lua/lua_function.h"

#include <lua.hpp>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/tools/lua/lua_chunk.h"
#include "engine/tools/lua/lua_json.h"

namespace engine::tools::lua {
namespace {

// Pushes the entry function from what the chunk returned (at index 1, inside LuaSandbox::protect: a field's name
// may be new text); false when there is none.
bool push_entry(lua_State* L, const std::string& entry) {
  if (lua_isfunction(L, 1)) {
    lua_pushvalue(L, 1);
    return true;
  }
  return lua_istable(L, 1) && lua_getfield(L, 1, entry.c_str()) == LUA_TFUNCTION;
}

}  // namespace

std::shared_ptr<const LuaFunction> LuaFunction::load(const LuaFunctionConfig& config) {
  std::string bytecode = compile_chunk(read_file(config.file), config.display_path);
  LuaSandbox sandbox(config.limits, config.file.parent_path(), nullptr);
  auto outcome = run_chunk(sandbox, bytecode, config.display_path);
  bool found = false;
  std::string got;
  if (outcome.ok)
    outcome = sandbox.protect(1, [&](lua_State* L) {
      found = push_entry(L, config.entry);
      got = lua_istable(L, 1) ? "a table without one" : luaL_typename(L, 1);
    });
  if (!outcome.ok) throw Error("lua.load", "loading the script failed: " + outcome.message, SourceLoc{config.display_path});
  if (!found)
    throw Error("lua.load",
                "the script must return a function, or a table with a '" + config.entry + "' function; it returned " + got,
                SourceLoc{config.display_path});
  return std::make_shared<LuaFunction>(config, std::move(bytecode));
}

Value LuaFunction::call(const Value& argument) const {
  LuaSandbox sandbox(config_.limits, config_.file.parent_path(), nullptr);
  auto outcome = run_chunk(sandbox, bytecode_, config_.display_path);
  Value out;
  if (outcome.ok) {
    LuaSandbox::Outcome called{false, "lua.error", "the script no longer returns its '" + config_.entry + "' function"};
    // The call runs inside the protection (a pcall within it has its own budget), so reading its result back does.
    auto read = sandbox.protect(1, [&](lua_State* L) {
      if (!push_entry(L, config_.entry)) return;
      called = sandbox.call_with(argument, 1);
      if (called.ok && !lua_isnil(L, -1)) out = to_value(L, -1);
    });
    outcome = read.ok ? called : read;
  }
  if (!outcome.ok) throw Error(outcome.error_kind, outcome.message);
  return out;
}

}  // namespace engine::tools::lua
