// The sandbox's protected work: what reads a script's values runs where running out of memory is an outcome.
#include <catch2/catch.hpp>

#include <lua.hpp>

#include "engine/core/error.h"
#include "engine/tools/lua/lua_sandbox.h"

using namespace engine;
using namespace engine::tools::lua;

namespace {

LuaLimits one_megabyte() {
  LuaLimits limits;
  limits.memory_bytes = 1u << 20;
  return limits;
}

}  // namespace

TEST_CASE("protected work that runs out of memory is the memory limit's outcome, and the state goes on",
          "[lua][sandbox][hostile]") {
  LuaSandbox sandbox(one_megabyte(), {}, nullptr);
  lua_State* L = sandbox.state();
  std::string big(2u << 20, 'x');
  auto outcome = sandbox.protect(0, [&](lua_State* L) { lua_pushlstring(L, big.data(), big.size()); });
  CHECK_FALSE(outcome.ok);
  CHECK(outcome.error_kind == ErrorKind::LuaMemoryLimit);
  CHECK(outcome.message == "memory limit of 1048576 bytes exceeded");
  CHECK(lua_gettop(L) == 0);
  size_t length = 0;
  outcome = sandbox.protect(0, [&](lua_State* L) { length = lua_rawlen(L, (lua_pushliteral(L, "fits"), -1)); });
  CHECK(outcome.ok);
  CHECK(length == 4);
}

TEST_CASE("protected work finds its values at 1..n and leaves the stack as it was below them", "[lua][sandbox]") {
  LuaSandbox sandbox(one_megabyte(), {}, nullptr);
  lua_State* L = sandbox.state();
  lua_pushinteger(L, 7);  // below the values: stays
  lua_pushinteger(L, 1);
  lua_pushliteral(L, "two");
  int seen = 0;
  std::string second;
  auto outcome = sandbox.protect(2, [&](lua_State* L) {
    seen = lua_gettop(L);
    second = lua_tostring(L, 2);
  });
  CHECK(outcome.ok);
  CHECK(seen == 2);
  CHECK(second == "two");
  REQUIRE(lua_gettop(L) == 1);
  CHECK(lua_tointeger(L, 1) == 7);
}

TEST_CASE("protected work hands back a Lua error as the outcome and a C++ exception as itself", "[lua][sandbox]") {
  LuaSandbox sandbox(one_megabyte(), {}, nullptr);
  lua_State* L = sandbox.state();
  auto outcome = sandbox.protect(0, [](lua_State* L) { luaL_error(L, "no field %s", "run"); });
  CHECK_FALSE(outcome.ok);
  CHECK(outcome.error_kind == ErrorKind::LuaError);
  CHECK(outcome.message == "no field run");
  CHECK_THROWS_AS(sandbox.protect(0, [](lua_State*) { throw Error(ErrorKind::LuaConvert, "a function cannot be JSON"); }),
                  Error);
  CHECK(lua_gettop(L) == 0);
}

TEST_CASE("a log line the host cannot take is the script's error, named, not a lost exception", "[lua][sandbox]") {
  LuaSandbox sandbox(one_megabyte(), {}, [](const std::string&) { throw Error(ErrorKind::IoWriteFailed, "the disk is full"); });
  lua_State* L = sandbox.state();
  REQUIRE(luaL_loadstring(L, "print('x') return 'went on'") == LUA_OK);
  auto outcome = sandbox.call(0, 1);
  CHECK_FALSE(outcome.ok);
  CHECK(outcome.error_kind == ErrorKind::LuaError);
  CHECK(outcome.message == "[string \"print('x') return 'went on'\"]:1: cannot log the line: the disk is full");
  CHECK(lua_gettop(L) == 0);
}

TEST_CASE("a run that stops ends its script's loop, and no pcall catches the stop", "[lua][sandbox][cancel]") {
  LuaSandbox sandbox(one_megabyte(), {}, nullptr);
  lua_State* L = sandbox.state();
  Cancel cancel;
  cancel.cancel();
  REQUIRE(luaL_loadstring(L, "for i = 1, 3 do pcall(function() while true do end end) end return 'swallowed'") == LUA_OK);
  LuaSandbox::Outcome outcome;
  {
    ScopedCallContext context(sandbox, {nullptr, &cancel});
    outcome = sandbox.call(0, 1);
  }
  CHECK_FALSE(outcome.ok);
  CHECK(outcome.error_kind == ErrorKind::RunCancelled);
  CHECK(outcome.message == "the run was cancelled");
  // The next call, of a run not stopped, runs as ever.
  REQUIRE(luaL_loadstring(L, "return 'fine'") == LUA_OK);
  outcome = sandbox.call(0, 1);
  CHECK(outcome.ok);
  lua_pop(L, 1);
}
