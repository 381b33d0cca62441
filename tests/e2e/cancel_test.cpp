// Ctrl-C stops `engine run` mid-call: the request in flight is abandoned, the run reports stopped_reason
// cancelled, and the process exits 130 (128 + SIGINT) long before the server would have answered.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <thread>

#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;
using Clock = std::chrono::steady_clock;

namespace {

// Waits (at most 10 s) until the server holds `n` requests: the engine is then waiting for an answer.
bool requested(const MockLlmServer& server, size_t n) {
  for (int i = 0; i < 10'000 && server.requests().size() < n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return server.requests().size() >= n;
}

// A model server whose one answer comes after a minute: a run can only end sooner if its request is abandoned.
void enqueue_slow_answer(MockLlmServer& server, const std::string& text) {
  MockLlmServer::Reply slow = MockLlmServer::chat(text);
  slow.delay_ms = 60'000;
  server.enqueue(slow);
}

struct Interrupted {
  test::CommandResult result;
  Value doc;     // its --json
  long took_ms;  // from the signal to the exit
};

// Sends SIGINT once the engine waits for the server, and waits for it to exit.
Interrupted interrupt_when_waiting(test::EngineProcess& engine, const MockLlmServer& server) {
  REQUIRE(requested(server, 1));
  auto sent = Clock::now();
  engine.signal(SIGINT);
  Interrupted out{engine.wait(), nullptr, 0};
  out.took_ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count());
  INFO("stderr: " << out.result.err);
  out.doc = Value::parse(out.result.out);
  return out;
}

const char* const kServerEnv = "OPENAI_API_KEY=sk-e2e-secret-key OPENAI_BASE_URL=";

}  // namespace

TEST_CASE("SIGINT during a slow model call ends engine run at once, cancelled, exit 130", "[e2e][cancel]") {
  MockLlmServer server;
  enqueue_slow_answer(server, "Final Answer: 4");
  test::EngineProcess engine("run workflows/calculator.yaml --json --no-stream --llm openai:test-model --input 'What is 2+2?'",
                             kServerEnv + server.base_url());
  auto r = interrupt_when_waiting(engine, server);
  CHECK(r.result.exit_code == 130);
  CHECK(r.doc["stopped_reason"] == "cancelled");
  CHECK(r.doc["error"]["kind"] == "run.cancelled");
  CHECK(r.result.err.find("the run was cancelled") != std::string::npos);
  // Ended by the signal, not by the answer the server would give in a minute: the figure is printed, not bounded
  // (a loaded machine makes any bound a guess).
  WARN("SIGINT to exit: " << r.took_ms << " ms");
}

TEST_CASE("SIGINT during a workflow of steps stops the step in flight and starts no other", "[e2e][cancel]") {
  MockLlmServer server;
  enqueue_slow_answer(server, "billing");
  test::TempDir dir;
  dir.write("w.yaml",
            "inputs:\n  topic: t\nllm:\n  provider: scripted\n  scripted:\n    replies: [x]\n"
            "steps:\n  ask:\n    kind: llm\n    prompt: \"{{ topic }}\"\n"
            "  after:\n    kind: template\n    template: \"{{ steps.ask.output }}\"\n");
  test::EngineProcess engine("run " + test::shell_quote((dir.path() / "w.yaml").string()) +
                                 " --json --llm openai:test-model --input tides",
                             kServerEnv + server.base_url());
  auto r = interrupt_when_waiting(engine, server);
  CHECK(r.result.exit_code == 130);
  CHECK(r.doc["stopped_reason"] == "cancelled");
  CHECK(r.doc["steps"]["ask"]["status"] == "failed");
  CHECK(r.doc["steps"]["after"]["status"] == "not_run");
}

TEST_CASE("a step's timeout ends its slow model call and fails the run with stopped_reason timeout", "[e2e][cancel]") {
  test::TempDir dir;
  dir.write("w.yaml",
            "inputs:\n  topic: t\nllm:\n  provider: scripted\n  scripted:\n    latency_ms: 60000\n    replies: [x]\n"
            "steps:\n  ask:\n    kind: llm\n    timeout: 0.05\n    prompt: \"{{ topic }}\"\n");
  auto r = test::run_engine("run " + test::shell_quote((dir.path() / "w.yaml").string()) + " --json --input tides");
  CHECK(r.exit_code == 1);
  Value doc = Value::parse(r.out);
  CHECK(doc["stopped_reason"] == "timeout");
  CHECK(doc["error"]["kind"] == "run.timeout");
  CHECK(doc["error"]["message"] == "step 'ask' failed: the timeout of step 'ask' (50 ms) passed");
}

TEST_CASE("SIGINT during a Lua step's HTTP request cannot be caught by the script: the run is cancelled, exit 130",
          "[e2e][cancel][lua]") {
  MockLlmServer api;  // the granted API, which answers after a minute
  enqueue_slow_answer(api, "late");
  test::TempDir dir;
  // A script that catches every error of its request and answers all the same, as a careless one would.
  dir.write("catcher.lua",
            "return function(inputs)\n"
            "  local ok, err = pcall(engine.http.request, {method = 'POST', url = 'chat/completions', body = '{}'})\n"
            "  if not ok then return 'finish: caught ' .. tostring(err) end\n"
            "  return 'answered'\n"
            "end\n");
  dir.write("w.yaml", "inputs:\n  topic: t\nsteps:\n  fetch:\n    kind: lua\n    lua: catcher.lua\n"
                      "    limits: {timeout_ms: 60000}\n    allow:\n      http:\n        - url: \"" +
                          api.base_url() + "/\"\n          methods: [POST]\n");
  test::EngineProcess engine("run " + test::shell_quote((dir.path() / "w.yaml").string()) + " --json --input tides");
  auto r = interrupt_when_waiting(engine, api);
  CHECK(r.result.exit_code == 130);
  CHECK(r.doc["stopped_reason"] == "cancelled");
  CHECK(r.doc["error"]["kind"] == "run.cancelled");
  CHECK(r.doc["steps"]["fetch"]["status"] == "failed");
  CHECK(r.result.out.find("caught") == std::string::npos);
}
