// engine serve's threads do not grow with what it serves: twenty workflows, each with its own model server
// connection, a Lua tool with an HTTP grant and an MCP server over HTTP, each run once, leave the process with as many
// threads as one such workflow does (net/io_threads.h: one transport thread, one pipe watch, for all of them).
#include <catch2/catch.hpp>
#include <httplib.h>

#include <filesystem>

#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// Serves `count` workflows that each call the model, the MCP server's calculator and the granted API, runs each once,
// and gives the server's thread count after.
size_t threads_serving(size_t count, test::MockLlmServer& model, int backend_port) {
  test::TempDir dir;
  std::string backend = "http://127.0.0.1:" + std::to_string(backend_port);
  dir.write("fetch.lua",
            "return function(input)\n"
            "  return 'health ' .. engine.http.request{url = 'health'}.status\n"
            "end\n");
  for (size_t k = 0; k < count; ++k)
    dir.write("w" + std::to_string(k) + ".yaml",
              "name: w" + std::to_string(k) + "\ninputs: {input: {}}\n"
              "llm: {provider: llamacpp, model: m, base_url: \"" + model.base_url() + "\", max_retries: 0}\n"
              "tools:\n"
              "  - mcp: {url: \"" + backend + "/mcp\"}\n    tools: [calculator]\n"
              "  - lua: fetch.lua\n    name: fetch\n    description: Reads the backend's health.\n"
              "    allow: {http: [{url: \"" + backend + "/\", methods: [GET]}]}\n"
              "agent: {kind: react}\n");
  int port = test::free_port();
  test::EngineProcess served("serve " + test::shell_quote(dir.path().string()) + " -q --no-store --port " +
                             std::to_string(port));
  REQUIRE(test::wait_until_listening(port));
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  for (size_t k = 0; k < count; ++k) {
    model.enqueue(test::MockLlmServer::chat("Action: calculator\nAction Input: {\"input\": \"2+2\"}"));
    model.enqueue(test::MockLlmServer::chat("Action: fetch\nAction Input: now"));
    model.enqueue(test::MockLlmServer::chat("Final Answer: done"));
    auto r = client.Post("/v1/workflows/w" + std::to_string(k) + "/invoke", R"({"input": "go"})", "application/json");
    REQUIRE(r);
    INFO(r->body);
    REQUIRE(r->status == 200);
    CHECK(r->body.find("\"output\":\"done\"") != std::string::npos);
  }
  return test::thread_count(served.pid());
}

}  // namespace

TEST_CASE("serve: twenty workflows with their own model, grants and MCP server run on the threads of one",
          "[e2e][serve][threads]") {
  test::MockLlmServer model;
  int backend_port = test::free_port();
  test::EngineProcess backend("serve workflows/calculator.yaml -q --no-store --port " + std::to_string(backend_port));
  REQUIRE(test::wait_until_listening(backend_port));
  size_t one = threads_serving(1, model, backend_port);
  size_t twenty = threads_serving(20, model, backend_port);
  WARN("engine serve's threads: " << one << " serving one workflow, " << twenty << " serving twenty");
  CHECK(twenty == one);
  // Every run called the model three times, the calculator once and the granted API once: the threads were used.
  CHECK(model.requests().size() == 63);
}
