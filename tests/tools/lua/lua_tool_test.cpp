// The Lua host: tool protocol, sandbox, and every way a script can misbehave ending as an observation.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/tools/lua/lua_tool.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::TempDir;

namespace {

struct Script {
  TempDir dir;
  std::shared_ptr<const lua::LuaTool> tool;
  std::unique_ptr<ToolInstance> instance;
  test::EventLog log;

  explicit Script(const std::string& code, lua::LuaLimits limits = fast_limits()) {
    lua::LuaToolConfig cfg;
    cfg.file = dir.write("plugins/tool.lua", code);
    cfg.display_path = "plugins/tool.lua";
    cfg.limits = limits;
    tool = lua::LuaTool::load(cfg);
    instance = tool->instantiate({&log});
  }
  ToolResult call(const Value& input = "") { return instance->invoke(input); }

  static lua::LuaLimits fast_limits() {
    lua::LuaLimits l;
    l.instructions = 5'000'000;
    l.memory_bytes = 8u << 20;
    l.timeout = std::chrono::milliseconds(1500);
    return l;
  }
};

Error load_error(const std::string& code) {
  try {
    Script s(code);
  } catch (const Error& e) {
    return e;
  }
  FAIL("the script loaded");
  throw;
}

}  // namespace

TEST_CASE("a tool file may return a function", "[lua]") {
  Script s("return function(input) return 'got ' .. input end");
  CHECK(s.tool->name() == "tool");
  CHECK(s.call("x").text() == "got x");
}

TEST_CASE("a tool file may return a table with name, description and run", "[lua]") {
  Script s("return { name = 'adder', description = 'adds', run = function(i) return tonumber(i) + 1 end }");
  CHECK(s.tool->name() == "adder");
  CHECK(s.tool->description() == "adds");
  CHECK(s.call("41").text() == "42");
}

TEST_CASE("return values become observations: tables as JSON, nil as empty", "[lua]") {
  Script s(R"(return function(i)
    if i == 'table' then return { answer = 42, list = { 1, 2 } } end
    if i == 'nil' then return nil end
    if i == 'bool' then return true end
    return 1.5
  end)");
  CHECK(s.call("table").text() == R"({"answer":42,"list":[1,2]})");
  CHECK(s.call("nil").text().empty());
  CHECK(s.call("bool").text() == "true");
  CHECK(s.call("num").text() == "1.5");
}

TEST_CASE("return values are values: tables stay structured, numbers and booleans stay typed", "[lua]") {
  Script s(R"(return function(i)
    if i == 'table' then return { answer = 42, list = { 1, 2 } } end
    if i == 'bool' then return true end
    if i == 'text' then return '42' end
    return 1.5
  end)");
  CHECK(s.call("table").output == Value{{"answer", 42}, {"list", {1, 2}}});
  CHECK(s.call("bool").output == true);
  CHECK(s.call("num").output == 1.5);
  CHECK(s.call("text").output == "42");
}

TEST_CASE("an object input arrives as a table, nested tables and empty arrays included, and goes back unchanged",
          "[lua]") {
  Script s(R"(return function(args)
    if type(args) ~= 'table' then return 'not a table: ' .. type(args) end
    args.sum = args.x + args.y
    return args
  end)");
  Value in{{"x", 2}, {"y", 3.5}, {"tags", Value::array()}, {"nested", {{"list", {1, Value::array(), {{"a", Value::array()}}}}}},
           {"none", Value::object()}};
  ToolResult r = s.call(in);
  REQUIRE(r.ok());
  // [] stays [], {} stays {}; the keys come back sorted (Lua's tables have no order)
  CHECK(r.text() == R"({"nested":{"list":[1,[],{"a":[]}]},"none":{},"sum":5.5,"tags":[],"x":2,"y":3.5})");
  CHECK(s.call("text").text() == "not a table: string");
}

TEST_CASE("engine.json.array marks a table as an array, so an empty one is [] and not {}", "[lua]") {
  Script s(R"(return function(i)
    if i == 'new' then return { found = engine.json.array() } end
    if i == 'given' then local t = {} ; return { found = engine.json.array(t), same = engine.json.array(t) == t } end
    if i == 'filled' then local t = engine.json.array() ; t[1] = 'a' ; return t end
    if i == 'keys' then local t = engine.json.array() ; t.k = 1 ; return t end
    if i == 'decoded' then return engine.json.encode(engine.json.decode('{"a":[],"b":{}}')) end
    return { plain = {} }
  end)");
  CHECK(s.call("new").text() == R"({"found":[]})");
  CHECK(s.call("given").text() == R"({"found":[],"same":true})");
  CHECK(s.call("filled").text() == R"(["a"])");
  CHECK(s.call("keys").text() == R"({"k":1})");  // a key that is not an index makes it an object again: no loss
  CHECK(s.call("decoded").text() == R"({"a":[],"b":{}})");
  CHECK(s.call("plain").text() == R"({"plain":{}})");
  CHECK(s.call("bad").ok());
  Script bad("return function() return engine.json.array('x') end");
  CHECK(bad.call().text().find("bad argument #1 to 'array' (table expected, got string)") != std::string::npos);
}

TEST_CASE("engine.json and engine.log are available", "[lua]") {
  Script s(R"(return function(i)
    local t = engine.json.decode(i)
    engine.log('decoded', t.n)
    print('printed goes to the trace too')
    return engine.json.encode({ doubled = t.n * 2 })
  end)");
  CHECK(s.call(R"({"n": 21})").text() == R"({"doubled":42})");
  REQUIRE(s.log.events.size() == 2);
  CHECK(s.log.events[0].data["message"] == "decoded\t21");
  CHECK(s.log.events[1].data["message"] == "printed goes to the trace too");
}

TEST_CASE("a Lua syntax error names the script, line and column", "[lua]") {
  Error e = load_error("local x = 1\nreturn function( x end\n");
  CHECK(e.kind() == ErrorKind::LuaSyntax);
  CHECK(e.formatted() == "plugins/tool.lua:2: lua syntax error: ')' expected near 'end'\n  return function( x end");
}

TEST_CASE("a script that returns no tool is rejected at load", "[lua]") {
  Error e = load_error("return 42");
  CHECK(e.kind() == ErrorKind::LuaLoad);
  CHECK(e.message() == "the tool script must return a function or a table with a 'run' function, got number");
}

TEST_CASE("a tool that errors becomes an observation naming the tool", "[lua]") {
  Script s("return function(i) error('no such customer: ' .. i) end");
  auto r = s.call("Z");
  CHECK_FALSE(r.ok());
  CHECK(r.error_kind == ErrorKind::ToolError);
  CHECK(r.text() == "tool 'tool' failed: plugins/tool.lua:1: no such customer: Z");
  CHECK(s.call("again").text() == "tool 'tool' failed: plugins/tool.lua:1: no such customer: again");
}

TEST_CASE("an infinite loop hits the instruction limit", "[lua]") {
  Script s("return function() while true do end end");
  auto r = s.call();
  CHECK(r.error_kind == ErrorKind::ToolInstructionLimit);
  CHECK(r.text() == "tool 'tool' failed: instruction limit of 5000000 exceeded");
}

TEST_CASE("an infinite loop inside pcall cannot swallow the limit", "[lua]") {
  Script s(R"(return function()
    while true do pcall(function() while true do end end) end
  end)");
  CHECK(s.call().error_kind == ErrorKind::ToolInstructionLimit);
  Script t(R"(return function()
    local ok, err = pcall(function() while true do end end)
    return 'swallowed: ' .. tostring(err)
  end)");
  CHECK(t.call().error_kind == ErrorKind::ToolInstructionLimit);
}

TEST_CASE("a wall-clock limit stops a slow script", "[lua]") {
  lua::LuaLimits l;
  l.instructions = 100'000'000'000ULL;
  l.timeout = std::chrono::milliseconds(200);
  Script s("return function() while true do end end", l);
  auto r = s.call();
  CHECK(r.error_kind == ErrorKind::ToolTimeout);
  CHECK(r.text() == "tool 'tool' failed: time limit of 200 ms exceeded");
}

TEST_CASE("a memory bomb hits the memory limit, also inside pcall", "[lua]") {
  Script s("return function() local t = {} for i = 1, 1e9 do t[i] = {i} end end");
  CHECK(s.call().error_kind == ErrorKind::ToolMemoryLimit);
  Script rep("return function() return string.rep('x', 1e9) end");
  auto r = rep.call();
  CHECK(r.error_kind == ErrorKind::ToolMemoryLimit);
  CHECK(r.text() == "tool 'tool' failed: memory limit of 8388608 bytes exceeded");
  Script caught(R"(return function()
    local t = {}
    while true do pcall(function() t[#t + 1] = string.rep('y', 1e6) end) end
  end)");
  CHECK(caught.call().error_kind == ErrorKind::ToolMemoryLimit);
  // The state is usable again after a limit.
  CHECK_FALSE(s.call().ok());
}

TEST_CASE("an input larger than the memory limit is that limit's failure, not a crash", "[lua][hostile]") {
  // The model writes the input: one longer than the tool's whole memory must end as an observation.
  Script s("return function(input) return type(input) == 'table' and #input.items or #input end");
  auto text = s.call(std::string(9u << 20, 'x'));
  CHECK(text.error_kind == ErrorKind::ToolMemoryLimit);
  CHECK(text.text() == "tool 'tool' failed: memory limit of 8388608 bytes exceeded");
  Value items = Value::array();
  for (int i = 0; i < 200000; ++i) items.push_back("item " + std::to_string(i));
  auto object = s.call(Value{{"items", items}});
  CHECK(object.error_kind == ErrorKind::ToolMemoryLimit);
  CHECK(s.call("small").text() == "5");
}

TEST_CASE("a pathological pattern on a long string stops within the budget", "[lua]") {
  Script s("return function() return string.rep('a', 100000):find('.-.-.-.-.-b') end");
  auto r = s.call();
  CHECK(r.error_kind == ErrorKind::ToolInstructionLimit);
  Script m("return function() return (string.rep('a', 50000)):match('(a*)*b') end");
  CHECK_FALSE(m.call().ok());
  Script g("return function() return (string.rep('x', 200000)):gsub('x', string.rep('y', 1000)) end");
  CHECK(g.call().error_kind == ErrorKind::ToolMemoryLimit);
}

TEST_CASE("bytecode cannot be loaded and string.dump is gone", "[lua]") {
  Script s(R"(return function()
    local f, err = load("\27Lua\84\0\25\147\13\10\26\10", 'x', 'b')
    return tostring(f) .. ' / ' .. err .. ' / ' .. tostring(string.dump)
  end)");
  CHECK(s.call().text() == "nil / attempt to load a binary chunk (mode is 't') / nil");
  Script text("return function() return load('return 1 + 1')() end");
  CHECK(text.call().text() == "2");
}

TEST_CASE("io, os.execute, debug, dofile and loadfile do not exist", "[lua]") {
  Script s(R"(return function()
    return table.concat({ tostring(io), tostring(os.execute), tostring(os.exit), tostring(debug),
                          tostring(dofile), tostring(loadfile), tostring(package), type(os.time()),
                          type(os.clock()), type(os.date('%Y')) }, ',')
  end)");
  CHECK(s.call().text() == "nil,nil,nil,nil,nil,nil,nil,number,number,string");
  Script gc("return function() collectgarbage('stop') end");
  CHECK(gc.call().text() == "tool 'tool' failed: plugins/tool.lua:1: collectgarbage('stop') is not available in "
                                 "the sandbox");
}

TEST_CASE("require loads only from the plugin's folder", "[lua]") {
  TempDir dir;
  dir.write("plugins/helper.lua", "return { twice = function(x) return x * 2 end }");
  dir.write("secret.lua", "return 'outside'");
  lua::LuaToolConfig cfg;
  cfg.file = dir.write("plugins/tool.lua", R"(local h = require('helper')
return function(i)
  if i == 'escape' then return require('..secret') end
  if i == 'missing' then return require('nothere') end
  return h.twice(21)
end)");
  cfg.display_path = "plugins/tool.lua";
  auto instance = lua::LuaTool::load(cfg)->instantiate({});
  CHECK(instance->invoke("ok").text() == "42");
  CHECK(instance->invoke("escape").text() ==
        "tool 'tool' failed: plugins/tool.lua:3: require: invalid module name '..secret'");
  CHECK(instance->invoke("missing").text().find("require: module 'nothere' not found") != std::string::npos);
}

TEST_CASE("require cannot follow a symlink out of the plugin's folder", "[lua]") {
  TempDir dir, outside;
  auto secret = outside.write("secret.lua", "return 'outside'");
  dir.write("plugins/tool.lua", "return function(i) return require(i) end");
  std::filesystem::create_symlink(secret, dir.path() / "plugins/leak.lua");
  std::filesystem::create_symlink("/proc/self/environ", dir.path() / "plugins/environ.lua");
  lua::LuaToolConfig cfg;
  cfg.file = dir.path() / "plugins/tool.lua";
  cfg.display_path = "plugins/tool.lua";
  auto instance = lua::LuaTool::load(cfg)->instantiate({});
  std::string root = std::filesystem::canonical(dir.path() / "plugins").string();
  CHECK(instance->invoke("leak").text() ==
        "tool 'tool' failed: plugins/tool.lua:1: require: 'leak.lua' resolves to '" +
            std::filesystem::canonical(secret).string() + "', outside the folders a workflow may read (" + root + ")");
  std::string environ = instance->invoke("environ").text();
  CHECK(environ.find("a system folder no workflow may read") != std::string::npos);
  CHECK(environ.find("PATH=") == std::string::npos);
}

TEST_CASE("each instance has its own state, the tool is shared", "[lua]") {
  Script s("local n = 0\nreturn function() n = n + 1 return n end");
  CHECK(s.call().text() == "1");
  CHECK(s.call().text() == "2");
  auto other = s.tool->instantiate({});
  CHECK(other->invoke("").text() == "1");
}

TEST_CASE("the shipped calculator plugin evaluates arithmetic safely", "[lua]") {
  lua::LuaToolConfig cfg;
  cfg.file = test::source_path("plugins/calculator.lua");
  cfg.display_path = "plugins/calculator.lua";
  auto calc = lua::LuaTool::load(cfg)->instantiate({});
  CHECK(calc->invoke("12 * 7 + 3").text() == "87");
  CHECK(calc->invoke("What is (2 + 3) ^ 2?").text() == "25");
  CHECK(calc->invoke("3 times 4 plus 1").text() == "13");
  CHECK(calc->invoke("10 / 4").text() == "2.5");
  CHECK(calc->invoke("-2 ** 2").text() == "4");
  CHECK(calc->invoke("sqrt(16) + max(1, 5)").text() == "9");
  CHECK(calc->invoke("1,000 * 3").text() == "3000");
  CHECK(calc->invoke("6 × 7").text() == "42");
  std::string div = calc->invoke("1 / 0").text();
  CHECK(div == "tool 'calculator' failed: plugins/calculator.lua:107: division by zero");
  CHECK(div.substr(div.size() - 18) == ": division by zero");
  CHECK(calc->invoke("os.exit()").text().find("unknown word 'os'") != std::string::npos);
}

TEST_CASE("no finaliser can run outside the limits: a metatable with __gc is refused", "[lua]") {
  Script s(R"(return function(i)
    if i == 'plain' then return setmetatable({}, {__gc = function() while true do end end}) end
    if i == 'pcall' then
      local ok, err = pcall(setmetatable, {}, {__gc = false})
      return tostring(ok) .. ': ' .. err
    end
    -- __gc added after setmetatable marks nothing: Lua never calls it
    local mt = {}
    local t = setmetatable({}, mt)
    mt.__gc = function() while true do end end
    t = nil
    collectgarbage()
    return 'collected'
  end)");
  auto r = s.call("plain");
  CHECK(r.error_kind == ErrorKind::ToolError);
  CHECK(r.text() == "tool 'tool' failed: plugins/tool.lua:2: setmetatable: a metatable with __gc is not allowed in "
                         "the sandbox (finalisers run outside its limits)");
  CHECK(s.call("pcall").text() == "false: setmetatable: a metatable with __gc is not allowed in the sandbox "
                                       "(finalisers run outside its limits)");
  CHECK(s.call("later").text() == "collected");
  CHECK(s.call("plain").error_kind == ErrorKind::ToolError);
  // setmetatable otherwise works as Lua's
  Script ok("return function() return getmetatable(setmetatable({}, {__index = {a = 1}})).__index.a end");
  CHECK(ok.call().text() == "1");
  s.instance.reset();  // lua_close runs no finaliser either: this returns at once
}

TEST_CASE("a table shared many times over is bounded by its size as JSON, not its depth", "[lua]") {
  lua::LuaLimits small = Script::fast_limits();
  small.memory_bytes = 1u << 20;  // the bound is the same at any size; a small one keeps the sanitizer build quick
  Script s(R"(return function(i)
    local t = {leaf = string.rep('x', 100)}
    for n = 1, 41 do t = {a = t, b = t} end
    if i == 'encode' then return engine.json.encode(t) end
    return t
  end)", small);
  auto r = s.call("return");
  CHECK(r.error_kind == ErrorKind::ToolError);
  CHECK(r.text().find("the value is larger than the tool's memory limit of 1048576 bytes (a table shared many "
                           "times over?)") != std::string::npos);
  r = s.call("encode");
  CHECK(r.text().find("engine.json.encode: the value is larger than the tool's memory limit") != std::string::npos);
  Script fine("return function() local t = {1} return {t, t, t} end");
  CHECK(fine.call().text() == "[[1],[1],[1]]");
}

TEST_CASE("gsub cannot grow its result past the memory limit between checks", "[lua]") {
  Script s("return function() return (string.rep('x', 1000):gsub('x', string.rep('%0', 100000))) end");
  auto r = s.call();
  CHECK(r.error_kind == ErrorKind::ToolMemoryLimit);
  CHECK(r.text() == "tool 'tool' failed: memory limit of 8388608 bytes exceeded");
  Script t("return function() return (string.rep('ab', 1e6):gsub('b', function() return string.rep('y', 1e5) end)) end");
  CHECK(t.call().error_kind == ErrorKind::ToolMemoryLimit);
  Script u("return function() return (string.rep('x', 3e6):gsub('x', {x = 'yyyy'})) end");
  CHECK(u.call().error_kind == ErrorKind::ToolMemoryLimit);
}

TEST_CASE("engine.json.decode refuses JSON nested past its bound", "[lua]") {
  Script s("return function(i) local ok, err = pcall(engine.json.decode, string.rep('[', i) .. string.rep(']', i)) "
           "return tostring(ok) .. ' ' .. tostring(err) end");
  CHECK(s.call("200000").text() ==
        "false engine.json.decode: JSON nested deeper than 128 levels");
  CHECK(s.call("100").text().rfind("true engine.json.array: ", 0) == 0);  // arrays carry their mark
}

TEST_CASE("a Lua tool declares its parameters in its table, and the workflow may override them", "[lua][parameters]") {
  TempDir dir;
  lua::LuaToolConfig cfg;
  cfg.file = dir.write("plugins/add.lua", R"(return {
    name = 'add',
    parameters = { type = 'object', properties = { x = { type = 'number' }, y = { type = 'number' } },
                   required = { 'x', 'y' } },
    run = function(args) return args.x + args.y end,
  })");
  cfg.display_path = "plugins/add.lua";
  auto tool = lua::LuaTool::load(cfg);
  CHECK(tool->parameters() ==
        Value::parse(R"({"properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"],
                         "type": "object"})"));
  Value args = "{\"x\": 2, \"y\": 40}";
  CHECK(tools::prepare_arguments(*tool, args).empty());
  CHECK(tool->instantiate({})->invoke(args).output == 42);
  Value bad = Value{{"x", 2}};
  CHECK(tools::prepare_arguments(*tool, bad) ==
        "tool 'add' was not run: its arguments do not match its parameters: at /y: is required");

  cfg.parameters = Value{{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}};
  CHECK(lua::LuaTool::load(cfg)->parameters() == cfg.parameters);

  cfg.parameters = nullptr;
  cfg.file = dir.write("plugins/bad.lua", "return { parameters = { type = 'objekt' }, run = function() end }");
  cfg.display_path = "plugins/bad.lua";
  CHECK_THROWS_WITH(lua::LuaTool::load(cfg),
                    "plugins/bad.lua: the tool's parameters: invalid schema: at /type: 'type' must be one of null, "
                    "boolean, object, array, number, string, integer, or an array of them");
}
