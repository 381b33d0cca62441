// The budgeted string.find/match/gmatch/gsub must behave as stock Lua 5.4's; the expected values are Lua's.
#include <catch2/catch.hpp>

#include "engine/tools/lua/lua_tool.h"
#include "support/test_support.h"

using namespace engine;

namespace {
std::string eval(const std::string& expr) {
  test::TempDir dir;
  tools::lua::LuaToolConfig cfg;
  cfg.file = dir.write("t.lua", "return function() return table.concat({ " + expr + " }, '|') end");
  cfg.display_path = "t.lua";
  return tools::lua::LuaTool::load(cfg)->instantiate({})->invoke("").text();
}
}  // namespace

TEST_CASE("string.find", "[lua][patterns]") {
  CHECK(eval("string.find('hello world', 'o w')") == "5|7");
  CHECK(eval("string.find('hello', 'l+')") == "3|4");
  CHECK(eval("string.find('a.b', '.', 1, true)") == "2|2");
  CHECK(eval("string.find('key = value', '(%w+)%s*=%s*(%w+)')") == "1|11|key|value");
  CHECK(eval("tostring(string.find('abc', 'x'))") == "nil");
  CHECK(eval("string.find('abc', 'b', -2)") == "2|2");
  CHECK(eval("string.find('abc', '')") == "1|0");
  CHECK(eval("string.find('aaa', '^a')") == "1|1");
}

TEST_CASE("string.match with classes, sets, anchors, captures", "[lua][patterns]") {
  CHECK(eval("string.match('  trim me  ', '^%s*(.-)%s*$')") == "trim me");
  CHECK(eval("string.match('2024-11-23', '(%d+)-(%d+)-(%d+)')") == "2024|11|23");
  CHECK(eval("string.match('f(a(b)c)d', '%b()')") == "(a(b)c)");
  CHECK(eval("string.match('THE (quick) fox', '%f[%a]%a+%f[%A]')") == "THE");
  CHECK(eval("string.match('hello', '()ll()')") == "3|5");
  CHECK(eval("string.match('x = \"a\"', '([\"\\'])(.-)%1')") == "\"|a");
  CHECK(eval("string.match('abc123', '[^%a]+')") == "123");
  CHECK(eval("string.match('a]b', '[]]')") == "]");
  CHECK(eval("string.match('a-b', '[a%-]+')") == "a-");
  CHECK(eval("string.match('hello', '.-l')") == "hel");
  CHECK(eval("string.match('hello', 'x?h')") == "h");
}

TEST_CASE("string.gmatch", "[lua][patterns]") {
  CHECK(eval("(function() local t = {} for w in string.gmatch('one two  three', '%a+') do t[#t+1] = w end "
             "return table.concat(t, ',') end)()") == "one,two,three");
  CHECK(eval("(function() local t = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t+1] = k .. v end "
             "return table.concat(t, ',') end)()") == "a1,b2");
  CHECK(eval("(function() local n = 0 for _ in string.gmatch('abc', '') do n = n + 1 end return n end)()") == "4");
}

TEST_CASE("string.gsub with string, table and function replacements", "[lua][patterns]") {
  CHECK(eval("string.gsub('hello world', 'o', '0')") == "hell0 w0rld|2");
  CHECK(eval("string.gsub('hello world', '(%w+)', '<%1>')") == "<hello> <world>|2");
  CHECK(eval("string.gsub('abc', '%w', '%0%0', 2)") == "aabbc|2");
  CHECK(eval("string.gsub('$name is $age', '%$(%w+)', { name = 'Ann', age = 3 })") == "Ann is 3|2");
  CHECK(eval("string.gsub('1 2 3', '%d', function(d) return d * 2 end)") == "2 4 6|3");
  CHECK(eval("string.gsub('keep', '%w+', function() return nil end)") == "keep|1");
  CHECK(eval("string.gsub('abc', '', '-')") == "-a-b-c-|4");
  CHECK(eval("string.gsub('  x', '^%s+', '')") == "x|1");
  CHECK(eval("('x'):gsub('x', '%%')") == "%|1");
}

TEST_CASE("malformed patterns are Lua errors, not crashes", "[lua][patterns]") {
  CHECK(eval("string.find('a', '[a')").find("malformed pattern (missing ']')") != std::string::npos);
  CHECK(eval("string.find('a', '%')").find("malformed pattern (ends with '%')") != std::string::npos);
  CHECK(eval("string.find('a', '(()')").find("unfinished capture") != std::string::npos);
  CHECK(eval("string.gsub('a', 'a', '%9')").find("invalid capture index %9") != std::string::npos);
  CHECK(eval("string.find(string.rep('a', 300), string.rep('(a)', 40))").find("too many captures") != std::string::npos);
}

TEST_CASE("patterns with NUL bytes and the %z class, as Lua 5.4's library", "[lua][patterns]") {
  // found by the differential fuzzer (tests/fuzz/lua_patterns_fuzz.cpp): a NUL in the pattern made it "plain"
  CHECK(eval("string.find('xa\\0\\0\\1y', 'a\\0+[\\0-\\1]')") == "2|5");
  CHECK(eval("string.find('a\\0b', '%z')") == "2|2");
  CHECK(eval("string.gsub('a\\0\\0b', '%z+', 'Z')") == "aZb|1");
  CHECK(eval("string.find('a.b\\0.c', '\\0.', 1, true)") == "4|5");
  CHECK(eval("tostring(string.find('abc', 'b\\0'))") == "nil");
}
