// Lua functions that keep nothing between calls (the host of Lua parsers): loading, calls, failures, limits.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/tools/lua/lua_function.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools::lua;
using engine::test::TempDir;

namespace {

struct FunctionScript {
  TempDir dir;
  std::shared_ptr<const LuaFunction> function;

  explicit FunctionScript(const std::string& code, uint64_t instructions = 2'000'000) {
    LuaFunctionConfig cfg{dir.write("parsers/p.lua", code), "parsers/p.lua", "parse", {}};
    cfg.limits.instructions = instructions;
    cfg.limits.memory_bytes = 8u << 20;
    function = LuaFunction::load(cfg);
  }
};

Error function_load_error(const std::string& code) {
  try {
    FunctionScript s(code);
  } catch (const Error& e) {
    return e;
  }
  FAIL("the script loaded");
  throw;
}

Error call_error(const FunctionScript& s, const Value& argument) {
  try {
    s.function->call(argument);
  } catch (const Error& e) {
    return e;
  }
  FAIL("the call succeeded");
  throw;
}

}  // namespace

TEST_CASE("a Lua function: the script returns it, or a table holding it by name", "[lua][function]") {
  FunctionScript bare("return function(text) return { tool = 'search', input = text:upper() } end");
  Value verdict = bare.function->call("oslo");
  CHECK(verdict["tool"] == "search");
  CHECK(verdict["input"] == "OSLO");
  FunctionScript table("return { helper = 1, parse = function(t) return { output = #t } end }");
  CHECK(table.function->call("four") == Value{{"output", 4}});
  FunctionScript nothing("return function() end");
  CHECK(nothing.function->call("x").is_null());
}

TEST_CASE("a Lua function keeps nothing from one call to the next", "[lua][function]") {
  FunctionScript s("calls = (calls or 0)\nreturn function() calls = calls + 1; return calls end");
  CHECK(s.function->call("a") == 1);
  CHECK(s.function->call("b") == 1);
  FunctionScript local("local n = 0\nreturn function() n = n + 1; return n end");
  CHECK(local.function->call("a") == 1);
  CHECK(local.function->call("b") == 1);
  CHECK(local.function->states().idle() == 0);  // each changed state was closed
  FunctionScript seeded("math.randomseed(3)\nreturn function() return math.random(1000000) end");
  Value first = seeded.function->call("a");
  CHECK(seeded.function->call("b") == first);
}

TEST_CASE("a Lua function's calls that change nothing share one state", "[lua][function][pool]") {
  FunctionScript s("return function(t) return t:upper() end");
  for (int i = 0; i < 5; ++i) CHECK(s.function->call("abc") == "ABC");
  CHECK(s.function->states().idle() == 1);
  CHECK(call_error(s, Value::array()).kind() == ErrorKind::LuaError);
  CHECK(s.function->states().idle() == 0);  // a failed call's state is not kept
  CHECK(s.function->call("x") == "X");
  CHECK(s.function->states().idle() == 1);
}

TEST_CASE("a Lua function that cannot load is refused when the workflow is built", "[lua][function]") {
  Error syntax = function_load_error("return function(t)\n  return t +\nend");
  CHECK(syntax.kind() == ErrorKind::LuaSyntax);
  CHECK(syntax.loc().line == 3);
  Error missing = function_load_error("return { run = function() end }");
  CHECK(missing.kind() == ErrorKind::LuaLoad);
  CHECK(std::string(missing.what()).find("a table with a 'parse' function; it returned a table without one") != std::string::npos);
  CHECK(function_load_error("error('broken at load')").kind() == ErrorKind::LuaLoad);
}

TEST_CASE("a Lua function's errors and limits come back as Errors of their kind", "[lua][function][hostile]") {
  FunctionScript raising("return function(t) error('no step in ' .. t, 0) end");
  Error raised = call_error(raising, "text");
  CHECK(raised.kind() == ErrorKind::LuaError);
  CHECK(raised.message() == "no step in text");
  FunctionScript looping("return function() while true do end end", 100'000);
  CHECK(call_error(looping, "x").kind() == ErrorKind::LuaInstructionLimit);
  FunctionScript greedy("return function() local t = {} for i = 1, 1e8 do t[i] = ('x'):rep(100) .. i end end", 1'000'000'000);
  CHECK(call_error(greedy, "x").kind() == ErrorKind::LuaMemoryLimit);
  FunctionScript nonjson("return function() return { f = print } end");
  CHECK(call_error(nonjson, "x").kind() == ErrorKind::LuaConvert);
}

TEST_CASE("a Lua function's argument larger than its memory limit is that limit's Error, not a crash",
          "[lua][function][hostile]") {
  FunctionScript s("return function(text) return #text end");
  Error big = call_error(s, std::string(9u << 20, 'x'));
  CHECK(big.kind() == ErrorKind::LuaMemoryLimit);
  CHECK(big.message() == "memory limit of 8388608 bytes exceeded");
  CHECK(s.function->call("four") == 4);
}
