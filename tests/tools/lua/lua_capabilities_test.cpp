// engine.http and engine.fs in a Lua tool: what its grants open, what they refuse, and a grant never reaching
// another tool's calls, however many runs share the states.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/core/file.h"
#include "engine/tools/lua/lua_tool.h"
#include "support/granted_api.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::GrantedApi;
using engine::test::TempDir;

namespace {

const std::string kApiToken = "Bearer lua-7c41e09b2f5d8a36";

struct GrantedScript {
  TempDir dir;
  std::shared_ptr<const lua::LuaTool> tool;
  std::unique_ptr<ToolInstance> instance;

  GrantedScript(const std::string& code, Grants grants, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    lua::LuaToolConfig cfg;
    cfg.file = dir.write("plugins/tool.lua", code);
    cfg.display_path = "plugins/tool.lua";
    cfg.limits.timeout = timeout;
    dir.write("docs/refunds.md", "Refunds take 14 days.");
    for (auto& f : grants.files)
      if (f.root.empty()) f.root = dir.path() / "docs";
    cfg.capabilities = Capabilities::granted(std::move(grants), {kApiToken});
    tool = lua::LuaTool::load(cfg);
    instance = tool->instantiate({});
  }
  ToolResult call(const Value& input = "") { return instance->invoke(input); }
};

Grants docs_grant(bool write = false) {
  Grants g;
  g.files.push_back(FileGrant{"", "./docs", write});
  return g;
}

Grants api_grant(const GrantedApi& api) {
  Grants g;
  HttpGrant h;
  h.written = api.base() + "/v1/";
  h.prefix = *net::parse_url(h.written);
  h.methods = {"GET", "POST"};
  h.headers = {{"Authorization", kApiToken}};
  g.http.push_back(h);
  return g;
}

}  // namespace

TEST_CASE("lua grants: engine.fs reads, lists and stats under the root", "[lua][grants]") {
  GrantedScript s(R"(return function(path)
    local entries = engine.fs.list()
    local st = engine.fs.stat(path)
    return { text = engine.fs.read(path), first = entries[1].name, size = st.size, missing = engine.fs.stat('no.md') == nil }
  end)", docs_grant());
  ToolResult r = s.call("refunds.md");
  REQUIRE(r.ok());
  CHECK(r.output["text"] == "Refunds take 14 days.");
  CHECK(r.output["first"] == "refunds.md");
  CHECK(r.output["size"] == 21);
  CHECK(r.output["missing"] == true);
}

TEST_CASE("lua grants: escapes from the root are the script's errors, which it may catch", "[lua][grants]") {
  GrantedScript s(R"(return function(path)
    local ok, err = pcall(engine.fs.read, path)
    if ok then return 'read: ' .. err end
    return 'refused: ' .. err
  end)", docs_grant());
  CHECK(s.call("../plugins/tool.lua").text() ==
        "refused: engine.fs.read: the path '../plugins/tool.lua' has a '..': paths stay under the granted root");
  CHECK(s.call("/etc/passwd").text().find("is absolute") != std::string::npos);
  CHECK(s.call("refunds.md").text() == "read: Refunds take 14 days.");
}

TEST_CASE("lua grants: a write needs write: true", "[lua][grants]") {
  GrantedScript ro("return function(t) return engine.fs.write('out.md', t) end", docs_grant());
  ToolResult refused = ro.call("x");
  CHECK_FALSE(refused.ok());
  CHECK(refused.text() == "tool 'tool' failed: plugins/tool.lua:1: engine.fs.write: no files grant of this tool allows writing (write: true)");
  GrantedScript rw("return function(t) return engine.fs.write('out.md', t) end", docs_grant(true));
  CHECK(rw.call("written").ok());
  CHECK(read_file(rw.dir.path() / "docs/out.md") == "written");
}

TEST_CASE("lua grants: without a grant engine.http and engine.fs say how to get one", "[lua][grants]") {
  GrantedScript s(R"(return function(which)
    if which == 'fs' then return engine.fs.read('refunds.md') end
    return engine.http.request{url = 'http://127.0.0.1:1/'}
  end)", Grants{});
  CHECK(s.call("fs").text() ==
        "tool 'tool' failed: plugins/tool.lua:2: engine.fs.read: this tool has no files grant (give it one with allow: files: in the workflow)");
  CHECK(s.call("http").text() ==
        "tool 'tool' failed: plugins/tool.lua:3: engine.http.request: this tool has no http grant (give it one with allow: http: in the workflow)");
}

TEST_CASE("lua grants: engine.http.request sends JSON and reads JSON, the grant's header unseen", "[lua][grants]") {
  GrantedApi api;
  GrantedScript s(R"(return function(base)
    local r = engine.http.request{url = base .. '/v1/echo', json = {q = 'x'}, headers = {['X-Probe'] = 'lua'}}
    return { status = r.status, method = r.json.method, auth = r.json.auth, probe = r.json.probe, body = r.json.body,
             type = r.headers['content-type'], echoed = r.headers['x-echo-auth'] }
  end)", api_grant(api));
  ToolResult r = s.call(api.base());
  INFO(r.text());
  REQUIRE(r.ok());
  CHECK(r.output["status"] == 200);
  CHECK(r.output["method"] == "POST");  // a body makes the default method POST
  CHECK(r.output["auth"] == "***");
  CHECK(r.output["echoed"] == "***");
  CHECK(r.output["probe"] == "lua");
  CHECK(r.output["body"] == "{\"q\":\"x\"}");
  CHECK(r.output["type"] == "application/json");
  CHECK(r.text().find("lua-7c41e09b") == std::string::npos);
}

TEST_CASE("lua grants: a refused URL names the grant, and waiting counts against the time limit", "[lua][grants]") {
  GrantedApi api;
  GrantedScript s(R"(return function(url) return engine.http.request{url = url}.body end)", api_grant(api),
                  std::chrono::milliseconds(500));
  ToolResult refused = s.call(api.base() + "/admin");
  CHECK(refused.error_kind == ErrorKind::ToolError);
  CHECK(refused.text() == "tool 'tool' failed: plugins/tool.lua:1: engine.http.request: GET " + api.base() +
                              "/admin is not granted: the path /admin is not under the grant " + api.base() + "/v1/");
  ToolResult slow = s.call(api.base() + "/v1/hang");
  CHECK(slow.error_kind == ErrorKind::ToolTimeout);
  CHECK(slow.text() == "tool 'tool' failed: plugins/tool.lua:1: time limit of 500 ms exceeded");
  CHECK(s.call(api.base() + "/v1/echo").ok());  // the state is usable after a trip
}

TEST_CASE("lua grants: the run's cancel ends a request the script waits on", "[lua][grants]") {
  GrantedApi api;
  GrantedScript s(R"(return function(url) return engine.http.request{url = url}.body end)", api_grant(api),
                  std::chrono::seconds(30));
  Cancel cancel;
  auto instance = s.tool->instantiate({nullptr, &cancel});
  std::thread stopper([&] {
    test::wait_until([&] { return api.hangs() == 1; });  // the script waits on the request
    cancel.cancel();
  });
  ToolResult r = instance->invoke(api.base() + "/v1/hang");  // answers nothing, ever: only the cancel ends it
  stopper.join();
  CHECK_FALSE(r.ok());
  CHECK(r.text().find("cancelled") != std::string::npos);
}

TEST_CASE("lua grants: of two tools on one script only the granted one reads, over 1000 runs", "[lua][grants]") {
  // The script keeps what it read in a global: were a granted state ever handed to the other tool, it would show.
  std::string code = R"(return function(path)
    if kept then return 'kept: ' .. kept end
    local ok, text = pcall(engine.fs.read, path)
    if ok then return 'read: ' .. text end
    return 'refused'
  end)";
  GrantedScript granted(code, docs_grant());
  lua::LuaToolConfig cfg;
  cfg.file = granted.dir.path() / "plugins/tool.lua";
  cfg.display_path = "plugins/tool.lua";
  auto ungranted = lua::LuaTool::load(cfg);
  std::atomic<int> read{0}, refused{0}, wrong{0};
  {
    FiberPool pool(2);
    for (int run = 0; run < 1000; ++run)
      pool.spawn([&] {
        auto a = granted.tool->instantiate({});
        auto b = ungranted->instantiate({});
        for (int call = 0; call < 2; ++call) {
          std::string got = a->invoke("refunds.md").text();
          if (got == "read: Refunds take 14 days.") ++read;
          else ++wrong;
          got = b->invoke("refunds.md").text();
          if (got == "refused") ++refused;
          else ++wrong;
        }
      });
    pool.join();
  }
  CHECK(read == 2000);
  CHECK(refused == 2000);
  CHECK(wrong == 0);
}
