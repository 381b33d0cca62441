// Runs share a Lua tool's states only where no script could tell: each run sees the script as loaded, keeps what
// its own calls changed, and logs to its own sink.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "engine/tools/lua/lua_tool.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::TempDir;

namespace {

struct SharedTool {
  TempDir dir;
  std::shared_ptr<const lua::LuaTool> tool;

  explicit SharedTool(const std::string& code, size_t memory_bytes = 8u << 20) {
    lua::LuaToolConfig cfg;
    cfg.file = dir.write("plugins/tool.lua", code);
    cfg.display_path = "plugins/tool.lua";
    cfg.limits.memory_bytes = memory_bytes;
    tool = lua::LuaTool::load(cfg);
  }
  std::unique_ptr<ToolInstance> run(EventSink* events = nullptr) const { return tool->instantiate({events}); }
  size_t idle() const { return tool->states().idle(); }
};

}  // namespace

TEST_CASE("a state a call left unchanged serves the next run instead of a new one", "[lua][pool]") {
  SharedTool t("return function(x) local parts = {} for w in x:gmatch('%a+') do parts[#parts + 1] = w:upper() end "
               "return table.concat(parts, ' ') end");
  CHECK(t.idle() == 0);
  auto first = t.run();
  auto second = t.run();
  CHECK(first->invoke("a b").text() == "A B");
  CHECK(t.idle() == 1);  // with another run about, given back after the call
  CHECK(second->invoke("c d").text() == "C D");
  CHECK(t.idle() == 1);  // the same state: a second would make two idle
  CHECK(first->invoke("e").text() == "E");
  CHECK(t.idle() == 1);
}

TEST_CASE("a run alone with a tool keeps its state between calls and gives it back at its end", "[lua][pool]") {
  SharedTool t("return function(x) return x end");
  {
    auto alone = t.run();
    CHECK(alone->invoke("a").text() == "a");
    CHECK(alone->invoke("b").text() == "b");
    CHECK(t.idle() == 0);
  }
  CHECK(t.idle() == 1);
  CHECK(t.run()->invoke("c").text() == "c");
  CHECK(t.idle() == 1);
  SharedTool changing("return function(x) last = x return x end");
  changing.run()->invoke("a");
  CHECK(changing.idle() == 0);  // changed: closed with its run
}

TEST_CASE("a run that changed its state keeps it, and the next run starts from the script as loaded", "[lua][pool]") {
  SECTION("a local of the chunk") {
    SharedTool t("local n = 0\nreturn function() n = n + 1 return n end");
    auto a = t.run();
    CHECK(a->invoke("").text() == "1");
    CHECK(t.idle() == 0);
    auto b = t.run();
    CHECK(b->invoke("").text() == "1");
    CHECK(a->invoke("").text() == "2");
    CHECK(b->invoke("").text() == "2");
  }
  SECTION("a global") {
    SharedTool t("return function(x) if x == 'set' then seen = 'yes' end return seen or 'no' end");
    auto a = t.run();
    CHECK(a->invoke("get").text() == "no");
    CHECK(a->invoke("set").text() == "yes");
    CHECK(a->invoke("get").text() == "yes");
    CHECK(t.run()->invoke("get").text() == "no");
  }
  SECTION("a seeded random generator") {
    SharedTool t("math.randomseed(42)\nreturn function() return math.random(1000000) end");
    auto a = t.run();
    std::string first = a->invoke("").text();
    CHECK(a->invoke("").text() != first);
    CHECK(t.run()->invoke("").text() == first);
    CHECK(t.run()->invoke("").text() == first);
  }
  SECTION("a module loaded on the first call") {
    SharedTool t("return function() local m = require('counter') m.n = m.n + 1 return m.n end");
    t.dir.write("plugins/counter.lua", "return {n = 0}");
    auto a = t.run();
    CHECK(a->invoke("").text() == "1");
    CHECK(a->invoke("").text() == "2");
    CHECK(t.run()->invoke("").text() == "1");
  }
}

TEST_CASE("a state whose call failed stays with its run until a call leaves it as made", "[lua][pool]") {
  SharedTool t("return function(x) if x == 'fail' then error('no') end if x == 'mark' then marked = true end "
               "return x end");
  auto other = t.run();  // so that states are given back after each call
  auto a = t.run();
  CHECK(a->invoke("fail").text() == "tool 'tool' failed: plugins/tool.lua:1: no");
  CHECK(t.idle() == 0);
  CHECK(a->invoke("ok").text() == "ok");
  CHECK(t.idle() == 1);
  auto b = t.run();
  CHECK(b->invoke("mark").text() == "mark");  // takes the idle state and changes it
  CHECK(t.idle() == 0);
  CHECK(b->invoke("fail").text() == "tool 'tool' failed: plugins/tool.lua:1: no");
  CHECK(b->invoke("ok").text() == "ok");
  CHECK(t.idle() == 0);  // b's state has its mark: b keeps it
}

TEST_CASE("a shared state logs to the run calling it, and its chunk to the run that made it", "[lua][pool]") {
  SharedTool t("print('loaded')\nreturn function(x) print('got ' .. x) return x end");
  test::EventLog first_log, second_log;
  auto first = t.run(&first_log);
  auto second = t.run(&second_log);
  first->invoke("one");
  second->invoke("two");
  auto messages = [](const test::EventLog& log) {
    std::vector<std::string> m;
    for (const auto& e : log.events) m.push_back(e.data["message"].get<std::string>());
    return m;
  };
  CHECK(messages(first_log) == std::vector<std::string>{"loaded", "got one"});
  CHECK(messages(second_log) == std::vector<std::string>{"got two"});
}

TEST_CASE("garbage a shared state carries never trips a later run's memory limit", "[lua][pool]") {
  SharedTool t("return function(x) local t = {} for i = 1, 2000 do t[i] = x .. i end return #t end", 1u << 20);
  for (int i = 0; i < 300; ++i) {
    auto run = t.run();
    REQUIRE(run->invoke("some text to repeat").text() == "2000");
  }
  CHECK(t.idle() == 1);
}

TEST_CASE("runs on several threads share a tool's states safely", "[lua][pool]") {
  SharedTool t("return function(x) return (x:gsub('a', 'b')) end");
  std::vector<std::thread> threads;
  std::vector<int> right(4, 0);
  for (size_t k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < 300; ++i) right[k] += t.run()->invoke("banana").text() == "bbnbnb";
    });
  for (auto& th : threads) th.join();
  CHECK(right == std::vector<int>(4, 300));
  CHECK(t.idle() >= 1);
  CHECK(t.idle() <= 4);
}
