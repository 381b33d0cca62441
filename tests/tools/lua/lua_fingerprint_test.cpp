// A state's fingerprint: every change a script can make and later see moves it; calls that change nothing keep it.
#include <catch2/catch.hpp>

#include <lua.hpp>

#include <optional>
#include <string>

#include "engine/tools/lua/lua_fingerprint.h"
#include "engine/tools/lua/lua_sandbox.h"

using namespace engine::tools::lua;

namespace {

struct State {
  LuaSandbox sandbox{LuaLimits{}, {}, nullptr};
  StateFingerprint fingerprint;

  void run(const std::string& code) {
    REQUIRE(luaL_loadstring(sandbox.state(), code.c_str()) == LUA_OK);
    auto outcome = sandbox.call(0, 0);
    INFO(outcome.message);
    REQUIRE(outcome.ok);
  }
  std::optional<uint64_t> print() {
    std::optional<uint64_t> p;
    REQUIRE(sandbox.protect(0, [&](lua_State* L) { p = fingerprint.of(L); }).ok);
    return p;
  }
};

// The fingerprint after `setup`, against the one after `change` as well.
bool changes(const std::string& setup, const std::string& change) {
  State s;
  s.run(setup);
  auto before = s.print();
  REQUIRE(before);
  s.run(change);
  return s.print() != before;
}

}  // namespace

TEST_CASE("a state's fingerprint stays the same through calls that change nothing", "[lua][fingerprint]") {
  State s;
  s.run("local cache = {}\nfunction f(x) local t = {x, x} return #t .. string.upper(tostring(x)) end");
  auto before = s.print();
  REQUIRE(before);
  CHECK(s.print() == before);
  s.run("for i = 1, 1000 do f(i) end local g = {} for i = 1, 100 do g[i] = {} end");
  s.run("collectgarbage()");
  CHECK(s.print() == before);
  CHECK_FALSE(changes("", "string.upper = string.upper"));
}

TEST_CASE("a state's fingerprint moves with a global or a library's field", "[lua][fingerprint]") {
  CHECK(changes("", "x = 1"));
  CHECK(changes("x = 1", "x = 2"));
  CHECK(changes("x = 1", "x = nil"));
  CHECK(changes("x = 1.5", "x = 2.5"));
  CHECK(changes("x = 1", "x = 1.0"));  // an integer and a float of one value print differently
  CHECK(changes("x = 'a'", "x = 'b'"));
  CHECK(changes("x = true", "x = false"));
  CHECK(changes("", "string.upper = nil"));
  CHECK(changes("", "math.pi = 3"));
  CHECK(changes("", "engine.json.extra = {}"));
  CHECK(changes("t = {}", "t.x = {}"));
  CHECK(changes("t = {{{}}}", "t[1][1][1] = 0"));
}

TEST_CASE("a state's fingerprint moves with a metatable, the string metatable included", "[lua][fingerprint]") {
  CHECK(changes("", "setmetatable(math, {})"));
  CHECK(changes("t = setmetatable({}, {})", "getmetatable(t).__index = {}"));
  CHECK(changes("", "getmetatable('').__index = {}"));
  CHECK(changes("", "getmetatable('').extra = 1"));
  CHECK(changes("", "string.extra = function() end"));
}

TEST_CASE("a state's fingerprint moves with a local a function closes over", "[lua][fingerprint]") {
  CHECK(changes("local n = 0\nfunction bump() n = n + 1 end", "bump()"));
  CHECK(changes("local t = {}\nfunction put() t.x = 1 end", "put()"));
  CHECK(changes("local t = {}\nlocal function inner() t[1] = true end\nfunction outer() inner() end", "outer()"));
  // A local the registry reaches only through a function a table holds.
  CHECK(changes("local s = 'a'\nlib = {get = function() return s end, set = function(v) s = v end}", "lib.set('b')"));
}

TEST_CASE("a state's fingerprint moves with hidden state: the random generator, an iterator's position",
          "[lua][fingerprint]") {
  CHECK(changes("", "math.random()"));
  CHECK(changes("", "math.randomseed(7)"));
  CHECK(changes("local words = ('a b c'):gmatch('%a+')\nfunction next_word() return words() end", "next_word()"));
}

TEST_CASE("a state that holds a coroutine, a deep nest or a very large table is never shared", "[lua][fingerprint]") {
  State co;
  co.run("gen = coroutine.wrap(function() coroutine.yield(1) end)");
  CHECK_FALSE(co.print());
  State deep;
  deep.run("local t = {} root = t for i = 1, 150 do t.next = {} t = t.next end");
  CHECK_FALSE(deep.print());
  State large;
  large.run("big = {} for i = 1, 5000 do big[i] = i end");
  CHECK_FALSE(large.print());
  State fits;
  fits.run("small = {} for i = 1, 1000 do small[i] = i end local t = {} root = t for i = 1, 50 do t.next = {} t = t.next end");
  CHECK(fits.print());
}

// A new object may land where a collected one was: what a script reads (a string's bytes, a function's code) is
// compared, never an address alone. A run must never get a state holding another run's text because a new string
// took the place of the old one.
TEST_CASE("a state's fingerprint compares strings and code by content, not by where they lie", "[lua][fingerprint]") {
  for (int i = 0; i < 20; ++i) {  // the allocator may or may not give the same place back: never a false match
    CHECK(changes("last = string.rep('a', 40)", "last = nil collectgarbage() collectgarbage() last = string.rep('b', 40)"));
    CHECK(changes("last = 'init'", "last = nil collectgarbage() last = string.format('%s', 'secr')"));
    CHECK_FALSE(changes("s = string.rep('a', 50)", "s = string.rep('a', 50) collectgarbage() s = string.rep('a', 50)"));
    CHECK(changes("f = function() return 1 end", "f = nil collectgarbage() f = function() return 2 end"));
    CHECK(changes("local a, b = function() return 1 end, function() return 2 end f = a g = b",
                  "f = nil collectgarbage() f = g"));
    CHECK_FALSE(changes("f = function() return 1 end", "local old = f collectgarbage() f = old"));
  }
}

TEST_CASE("a state holding more than 256 KB of strings is not shared", "[lua][fingerprint]") {
  State s;
  s.run("big = string.rep('x', 300 * 1024)");
  CHECK_FALSE(s.print());
}
