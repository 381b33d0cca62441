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

std::unique_ptr<PreparedState> prepare(const LuaFunctionConfig& config, const std::string& bytecode) {
  auto state = std::make_unique<PreparedState>();
  state->sandbox = std::make_unique<LuaSandbox>(config.limits, config.file.parent_path(), nullptr);
  auto outcome = run_chunk(*state->sandbox, bytecode, config.display_path);
  if (outcome.ok)
    outcome = state->sandbox->protect(1, [&](lua_State* L) {
      if (push_entry(L, config.entry)) state->entry_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    });
  if (!outcome.ok) state->failure = outcome;
  else if (state->entry_ref == LUA_NOREF)
    state->failure = {false, ErrorKind::LuaError, "the script no longer returns its '" + config.entry + "' function"};
  LuaStatePool::seal(*state);
  return state;
}

}  // namespace

LuaFunction::LuaFunction(LuaFunctionConfig config, std::string bytecode)
    : capabilities_(config.capabilities),
      states_([config = std::move(config), bytecode = std::move(bytecode)](const LuaSandbox::LogFn&) {
        return prepare(config, bytecode);
      }) {}

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
  if (!outcome.ok) throw Error(ErrorKind::LuaLoad, "loading the script failed: " + outcome.message, SourceLoc{config.display_path});
  if (!found)
    throw Error(ErrorKind::LuaLoad,
                "the script must return a function, or a table with a '" + config.entry + "' function; it returned " + got,
                SourceLoc{config.display_path});
  return std::make_shared<LuaFunction>(config, std::move(bytecode));
}

Value LuaFunction::call(std::span<const Value> arguments, const LuaSandbox::LogFn& log) const {
  std::unique_ptr<PreparedState> state = states_.take();
  if (state->entry_ref == LUA_NOREF) throw Error(state->failure.error_kind, state->failure.message);
  LuaSandbox& sandbox = *state->sandbox;
  sandbox.set_log(log);
  lua_rawgeti(sandbox.state(), LUA_REGISTRYINDEX, state->entry_ref);
  LuaSandbox::Outcome outcome;
  {
    ScopedCallContext context(sandbox, {capabilities_.empty() ? nullptr : &capabilities_, nullptr});
    outcome = sandbox.call_with(arguments, 1);
  }
  sandbox.set_log(nullptr);  // the state goes back to the pool, and the next caller is another run
  Value out;
  if (outcome.ok) outcome = sandbox.protect(1, [&](lua_State* L) {
    if (!lua_isnil(L, 1)) out = to_value(L, 1);
  });
  if (!outcome.ok) throw Error(outcome.error_kind, outcome.message);
  states_.give_back(state);  // a state the call changed is closed here: the next call must not see it
  return out;
}

}  // namespace engine::tools::lua
