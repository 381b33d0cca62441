// A batch's runs are fibers with stacks of their own (2 MB, 8 MB under the sanitizers). What a run does deepest, at
// the engine's own limits, must end in the limit's error or its answer, never past the stack's guard page.
#include <catch2/catch.hpp>

#include <string>

#include "engine/core/fiber.h"
#include "engine/template/template.h"
#include "engine/tools/lua/lua_tool.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// Runs `body` on a fiber of a one-thread pool and waits for it.
void on_its_own_fiber(const std::function<void()>& body) {
  FiberPool pool(1);
  pool.spawn(body);
  pool.join();
}

}  // namespace

TEST_CASE("fiber stack: a Lua tool recursing through C calls stops at Lua's limit, within the stack",
          "[app][fiber]") {
  test::TempDir dir;
  tools::lua::LuaToolConfig cfg;
  // Each level is a C call (string.gsub) calling back into Lua: the deepest a script can make the C stack.
  cfg.file = dir.write("deep.lua",
                       "local function deep(n) return (string.gsub('x', 'x', function() return deep(n + 1) end)) end\n"
                       "return function() local ok, err = pcall(deep, 0) return tostring(ok) .. ': ' .. "
                       "tostring(err):match('stack overflow') end\n");
  cfg.display_path = "deep.lua";
  auto tool = tools::lua::LuaTool::load(cfg);
  std::string text;
  on_its_own_fiber([&] { text = tool->instantiate({})->invoke("").text(); });
  CHECK(text == "false: stack overflow");
}

TEST_CASE("fiber stack: templates nested to the parser's limit and macros called to theirs render on a fiber",
          "[app][fiber]") {
  std::string nested;
  for (int i = 0; i < 190; ++i) nested += "{% if true %}";
  nested += "deep";
  for (int i = 0; i < 190; ++i) nested += "{% endif %}";
  std::string recursive =
      "{% macro down(n) %}{% if n > 0 %}{% for i in [1] %}{% if true %}{{ down(n - 1) }}{% endif %}{% endfor %}"
      "{% else %}bottom{% endif %}{% endmacro %}{{ down(60) }}";
  std::string nested_out, recursive_out;
  on_its_own_fiber([&] {
    nested_out = tmpl::Template::compile(nested, "nested").render(Value::object());
    recursive_out = tmpl::Template::compile(recursive, "recursive").render(Value::object());
  });
  CHECK(nested_out == "deep");
  CHECK(recursive_out == "bottom");
}
