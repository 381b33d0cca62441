// allow: beside a Lua tool, a lua step or a Lua parser: the grants read, and every mistake in them located.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "engine/assemble/build_executor.h"
#include "engine/core/error.h"
#include "engine/spec/workflow_spec.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::TempDir;

namespace {

const std::string kAllowHead = "inputs: {input: {}}\nllm: {provider: scripted, scripted: {replies: [x]}}\n";

struct AllowFolder {
  TempDir dir;
  AllowFolder() {
    dir.write("tool.lua", "return function(i) return i end");
    dir.write("docs/a.md", "a");
  }
  spec::WorkflowSpec load(const std::string& body) const {
    return spec::parse_workflow(kAllowHead + body, (dir.path() / "w.yaml").string(), dir.path());
  }
  std::string error(const std::string& body) const {
    try {
      auto w = load(body);
      assemble::build_executor(w);
    } catch (const Error& e) {
      return e.formatted();
    }
    return "no error";
  }
};

}  // namespace

TEST_CASE("allow spec: http and files grants with their defaults", "[spec][grants]") {
  ::setenv("ALLOW_SPEC_TOKEN", "tok-abcdef123456", 1);
  AllowFolder f;
  auto w = f.load(
      "agent: {}\ntools:\n  - lua: tool.lua\n    allow:\n      http:\n        - url: https://api.example.com/v1/\n"
      "          methods: [get, POST]\n          headers: {Authorization: 'Bearer ${ALLOW_SPEC_TOKEN}', Accept: x}\n"
      "          max_bytes: 1000\n        - url: http://127.0.0.1:8080\n      files:\n        - root: ./docs\n"
      "          write: true\n");
  const spec::AllowSpec& a = w.tools[0].allow;
  REQUIRE(a.http.size() == 2);
  CHECK(a.http[0].methods == std::vector<std::string>{"GET", "POST"});
  CHECK(a.http[0].headers.size() == 2);
  CHECK(a.http[0].max_bytes == 1000);
  CHECK(a.http[1].methods == std::vector<std::string>{"GET"});  // GET unless told
  CHECK(a.http[1].max_bytes == 4 << 20);
  // The header read through ${VAR} is a secret of the load; a plain header is not.
  CHECK(w.secrets->holds("Bearer tok-abcdef123456"));
  CHECK_FALSE(w.secrets->holds("x"));
  REQUIRE(a.files.size() == 1);
  CHECK(a.files[0].root_dir == std::filesystem::canonical(f.dir.path() / "docs"));
  CHECK(a.files[0].write);
  auto st = f.load("steps:\n  s:\n    kind: lua\n    lua: tool.lua\n    allow: {files: [{root: docs}]}\n");
  CHECK(st.steps[0].allow.files.size() == 1);
  auto parser = f.load("tools: []\nagent:\n  parser: {kind: lua, script: tool.lua, allow: {files: [{root: docs}]}}\n");
  CHECK(parser.agent.parsers[0].allow.files.size() == 1);
}

TEST_CASE("allow spec: every mistake is located at its key", "[spec][grants]") {
  AllowFolder f;
  auto tool = [&](const std::string& allow) { return f.error("agent: {}\ntools:\n  - lua: tool.lua\n    allow: " + allow + "\n"); };
  CHECK(tool("{}").find("w.yaml:6:12: tools[0].allow grants nothing: give http: or files:") != std::string::npos);
  CHECK(tool("{net: []}").find("unknown key 'net' in tools[0].allow") != std::string::npos);
  CHECK(tool("{http: [{url: 'https://a.com/v1?x=1'}]}").find("tools[0].allow.http[0].url is a prefix") != std::string::npos);
  CHECK(tool("{http: [{url: 'https://user@a.com/'}]}").find("w.yaml:6:26: tools[0].allow.http[0].url: the URL has user info") != std::string::npos);
  CHECK(tool("{http: [{url: 'ftp://a.com/'}]}").find("does not start with http:// or https://") != std::string::npos);
  CHECK(tool("{http: [{url: 'https://a.com/', methods: [FETCH]}]}").find("'FETCH' is not one of") != std::string::npos);
  CHECK(tool("{http: [{methods: [GET]}]}").find("tools[0].allow.http[0]") != std::string::npos);
  CHECK(tool("{http: [{url: 'https://a.com/', headers: {'X-A': \"a\\nb\"}}]}").find("must be one line") != std::string::npos);
  CHECK(tool("{files: [{root: nowhere}]}").find("tools[0].allow.files[0].root: no folder 'nowhere'") != std::string::npos);
  CHECK(tool("{files: [{root: /proc}]}").find("is a system folder") != std::string::npos);
  CHECK(tool("{files: [{root: /}]}").find("is the whole file system") != std::string::npos);
  CHECK(tool("{files: [{root: docs, write: maybe}]}").find("tools[0].allow.files[0].write") != std::string::npos);
  CHECK(f.error("agent: {}\ntools:\n  - mcp: {command: x}\n    allow: {files: [{root: docs}]}\n")
            .find("tools[0].allow is for a Lua or built-in tool") != std::string::npos);
  CHECK(f.error("steps:\n  s:\n    kind: template\n    template: x\n    allow: {files: [{root: docs}]}\n")
            .find("steps.s.allow is not for kind: template") != std::string::npos);
}
