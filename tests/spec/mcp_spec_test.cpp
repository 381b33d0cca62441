// The mcp: tool entry: how a server is named, reached and limited, and every mistake in it located.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "engine/core/error.h"
#include "engine/spec/workflow_spec.h"

using namespace engine;

namespace {

const std::string kMcpHead = "inputs: {input: {}}\nllm: {provider: scripted, scripted: {replies: [x]}}\nagent: {}\ntools:\n";

spec::WorkflowSpec load_mcp(const std::string& tools) { return spec::parse_workflow(kMcpHead + tools, "/wf/w.yaml", "/wf"); }

std::string mcp_error(const std::string& tools) {
  try {
    load_mcp(tools);
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

}  // namespace

TEST_CASE("mcp spec: a stdio server's command, arguments, environment and folder", "[spec][mcp]") {
  ::setenv("MCP_SPEC_TOKEN", "tok-123456789", 1);
  auto w = load_mcp("  - mcp:\n      command: npx\n      args: [-y, '@modelcontextprotocol/server-filesystem@2026.8.31', ./docs]\n"
                "      env: {TOKEN: '${MCP_SPEC_TOKEN}', MODE: plain}\n      cwd: sub\n      roots: [docs]\n"
                "    tools: [read_text_file]\n    prefix: fs_\n    timeout: 500ms\n");
  REQUIRE(w.tools.size() == 1);
  const spec::McpSpec& m = *w.tools[0].mcp;
  CHECK(w.tools[0].name.value == "server-filesystem");  // what messages call it
  CHECK(m.command.value == "npx");
  CHECK(m.args.size() == 3);
  CHECK(m.env == std::vector<std::pair<std::string, std::string>>{{"TOKEN", "tok-123456789"}, {"MODE", "plain"}});
  CHECK(w.secrets->holds("tok-123456789"));  // only what came from the environment
  CHECK_FALSE(w.secrets->holds("plain"));
  CHECK(m.cwd == "/wf/sub");
  CHECK(m.roots == std::vector<std::filesystem::path>{"/wf/docs"});
  CHECK(m.allow.size() == 1);
  CHECK(m.prefix == "fs_");
  CHECK(m.timeout_s == 0.5);
}

// What the load reads as a secret goes into its set as it is read: a header refused after it was read is masked
// where its error is printed.
TEST_CASE("mcp spec: credential headers, however written, and the provider's key variable are secrets of the load",
          "[spec][mcp][redaction]") {
  ::setenv("MCP_SPEC_PROVIDER_KEY", "sk-spec-provider-0123456789", 1);
  auto secrets = std::make_shared<SecretSet>();
  spec::parse_workflow(
      "inputs: {input: {}}\nagent: {}\nllm: {provider: openai, model: m, api_key_env: MCP_SPEC_PROVIDER_KEY}\ntools:\n"
      "  - mcp: {url: 'http://h/mcp', headers: {Authorization: 'Bearer literal-token-0123', X-Team: plain-team-name}}\n",
      "/wf/w.yaml", "/wf", {.secrets = secrets});
  ::unsetenv("MCP_SPEC_PROVIDER_KEY");
  CHECK(secrets->holds("Bearer literal-token-0123"));
  CHECK(secrets->holds("sk-spec-provider-0123456789"));
  CHECK_FALSE(secrets->holds("plain-team-name"));
  ::setenv("MCP_SPEC_TWO_LINES", "sk-two-lines-0123\r\nX-Injected: 1", 1);
  auto refused = std::make_shared<SecretSet>();
  CHECK_THROWS_WITH(spec::parse_workflow(kMcpHead + "  - mcp: {url: 'http://h/mcp', headers: {X-Token: '${MCP_SPEC_TWO_LINES}'}}\n",
                                         "/wf/w.yaml", "/wf", {.secrets = refused}),
                    Catch::Contains("tools[0].mcp.headers.X-Token must be one line (and a name without ':')"));
  CHECK(refused->holds("sk-two-lines-0123\r\nX-Injected: 1"));
}

TEST_CASE("mcp spec: a server is named for its package, its script's package, its program or its host", "[spec][mcp]") {
  auto name = [](const std::string& mcp) { return load_mcp("  - mcp: " + mcp + "\n").tools[0].name.value; };
  CHECK(name("{command: uvx, args: [mcp-server-git, --repository, .]}") == "mcp-server-git");
  CHECK(name("{command: node, args: [/x/node_modules/server-everything/dist/index.js, stdio]}") == "server-everything");
  CHECK(name("{command: /opt/bin/my-server}") == "my-server");
  CHECK(name("{url: 'http://127.0.0.1:3001/mcp'}") == "127.0.0.1:3001");
  CHECK(load_mcp("  - name: files\n    mcp: {command: x}\n").tools[0].name.value == "files");
}

TEST_CASE("mcp spec: a timeout is seconds, or a number with ms, s or m", "[spec][mcp]") {
  auto timeout = [](const std::string& t) { return load_mcp("  - mcp: {command: x}\n    timeout: " + t + "\n").tools[0].mcp->timeout_s; };
  CHECK(timeout("30") == 30);
  CHECK(timeout("30s") == 30);
  CHECK(timeout("2m") == 120);
  CHECK(timeout("250ms") == 0.25);
  CHECK(mcp_error("  - mcp: {command: x}\n    timeout: 3h\n") ==
        "/wf/w.yaml:6:14: tools[0].timeout must be a time from 1 ms to a day: seconds, or a number with ms, s or m\n"
        "      timeout: 3h\n               ^");
  CHECK(mcp_error("  - mcp: {command: x}\n    timeout: 0s\n").find("tools[0].timeout must be a time") != std::string::npos);
}

TEST_CASE("mcp spec: each mistake is named where it is", "[spec][mcp]") {
  CHECK(mcp_error("  - mcp: {command: x, url: 'http://h/mcp'}\n") ==
        "/wf/w.yaml:5:10: tools[0].mcp has both command (stdio) and url (HTTP); give one\n"
        "    - mcp: {command: x, url: 'http://h/mcp'}\n           ^");
  CHECK(mcp_error("  - mcp: {args: [x]}\n").find("tools[0].mcp needs command: (a server over stdio) or url: (over "
                                                  "Streamable HTTP)") != std::string::npos);
  CHECK(mcp_error("  - mcp: {url: 'ftp://h/mcp'}\n").find("tools[0].mcp.url must start with http:// or https://") !=
        std::string::npos);
  CHECK(mcp_error("  - mcp: {url: 'http://h/mcp', env: {A: b}}\n")
            .find("tools[0].mcp.env is for a server started as a command (command:)") != std::string::npos);
  CHECK(mcp_error("  - mcp: {command: x, headers: {A: b}}\n")
            .find("tools[0].mcp.headers is for a server over HTTP (url:)") != std::string::npos);
  ::setenv("MCP_SPEC_TWO_LINES", "a\r\nX-Injected: 1", 1);
  CHECK(mcp_error("  - mcp: {url: 'http://h/mcp', headers: {Authorization: '${MCP_SPEC_TWO_LINES}'}}\n")
            .find("tools[0].mcp.headers.Authorization must be one line (and a name without ':')") != std::string::npos);
  CHECK(mcp_error("  - mcp: {command: x, comand: y}\n").find("unknown key 'comand'") != std::string::npos);
  CHECK(mcp_error("  - mcp: {command: x}\n    parameters: {type: object}\n")
            .find("tools[0].parameters: an MCP server's tools take theirs from the server") != std::string::npos);
  CHECK(mcp_error("  - lua: x.lua\n    prefix: a_\n").find("tools[0].prefix is for an mcp: server's tools") !=
        std::string::npos);
  CHECK(mcp_error("  - mcp: {command: x}\n    tools: []\n")
            .find("tools[0].tools lists no tool; leave it out to use them all") != std::string::npos);
  CHECK(mcp_error("  - mcp: {command: x}\n    lua: y.lua\n")
            .find("tools[0] has more than one of lua, builtin, workflow and mcp; give one") != std::string::npos);
}

TEST_CASE("mcp spec: references to a server's tools are checked against its tools: list, or left for when it starts",
          "[spec][mcp]") {
  std::string with_list = "  - mcp: {command: x}\n    tools: [get-sum]\n    prefix: ev_\n";
  CHECK(mcp_error(with_list).find("no error") == 0);
  auto agent_using = [](const std::string& tool, const std::string& tools) {
    try {
      spec::parse_workflow("inputs: {input: {}}\nllm: {provider: scripted, scripted: {replies: [x]}}\nagent: {tools: [" +
                               tool + "]}\ntools:\n" + tools,
                           "/wf/w.yaml", "/wf");
    } catch (const Error& e) {
      return std::string(e.message());
    }
    return std::string("no error");
  };
  CHECK(agent_using("ev_get-sum", with_list) == "no error");
  CHECK(agent_using("get-sum", with_list) == "unknown tool 'get-sum' in agent.tools");
  CHECK(agent_using("anything", "  - mcp: {command: x}\n") == "no error");
}
