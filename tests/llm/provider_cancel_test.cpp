// A cancelled run's model call ends at once: the request in flight is abandoned (whole or streamed), a retry's
// wait is cut short, and a deadline ends a call the server is slow to answer. The connection then is not reused,
// and the next call works.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/core/cancel.h"
#include "engine/llm/llm_gate.h"
#include "engine/llm/openai_llm.h"
#include "engine/llm/scripted_llm.h"
#include "support/llm_test_support.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;
using namespace std::chrono_literals;
using engine::test::MockLlmServer;

namespace {

LlmRequest cancellable_request(const Cancel& cancel, bool stream = false) {
  LlmRequest r;
  r.messages.push_back({"user", "2+2?", {}, ""});
  r.stream = stream;
  r.cancel = &cancel;
  return r;
}

// The reply after a wait far past the test's patience: the call ends only if the cancel ends it.
MockLlmServer::Reply late(MockLlmServer::Reply reply) {
  reply.delay_ms = 60'000;
  return reply;
}

// Cancels once the server has received `requests` requests, so the cancel lands mid-call.
std::thread cancel_when_asked(const MockLlmServer& server, Cancel& cancel, size_t requests = 1) {
  return std::thread([&server, &cancel, requests] {
    test::wait_until([&] { return server.requests().size() >= requests; }, 10000);
    cancel.cancel();
  });
}

}  // namespace

TEST_CASE("provider cancel: a request in flight is abandoned, whole or streamed, and the next call works",
          "[llm][cancel]") {
  MockLlmServer server;
  server.enqueue(late(MockLlmServer::chat("4")));
  server.enqueue(late(MockLlmServer::chat_stream({"4"})));
  server.enqueue(MockLlmServer::chat("four"));
  auto config = test::openai_config(server);
  config.timeouts.total = 600'000ms;
  OpenAiLlm openai(config);
  for (bool stream : {false, true}) {
    INFO("stream: " << stream);
    Cancel cancel;
    std::thread canceller = cancel_when_asked(server, cancel, stream ? 2 : 1);
    std::string kind;
    CHECK(test::error_of([&] { openai.complete(cancellable_request(cancel, stream)); }, &kind) == "the run was cancelled");
    canceller.join();
    CHECK(kind == "run.cancelled");
  }
  Cancel fresh;
  CHECK(openai.complete(cancellable_request(fresh)).text == "four");
}

TEST_CASE("provider cancel: a deadline ends a slow call with run.timeout", "[llm][cancel]") {
  MockLlmServer server;
  server.enqueue(late(MockLlmServer::chat("4")));
  auto config = test::openai_config(server);
  config.timeouts.total = 600'000ms;
  OpenAiLlm openai(config);
  Cancel run;
  Cancel step(&run, Cancel::Clock::now() + 50ms, "the timeout of step 'ask' (50 ms) passed");
  std::string kind;
  CHECK(test::error_of([&] { openai.complete(cancellable_request(step)); }, &kind) ==
        "the timeout of step 'ask' (50 ms) passed");
  CHECK(kind == "run.timeout");
}

TEST_CASE("provider cancel: a retry's wait is cut short", "[llm][cancel]") {
  MockLlmServer server;
  server.enqueue({503, R"({"error": {"message": "overloaded"}})", {{"retry-after", "50"}}});
  auto config = test::openai_config(server);
  config.retry.max_retry_after = 600'000ms;
  OpenAiLlm openai(config);
  Cancel cancel;
  std::thread canceller = cancel_when_asked(server, cancel);
  std::string kind;
  test::error_of([&] { openai.complete(cancellable_request(cancel)); }, &kind);
  canceller.join();
  CHECK(kind == "run.cancelled");
  CHECK(server.requests().size() == 1);  // no second attempt after the cancel
}

TEST_CASE("provider cancel: the scripted provider's latency and the gate's queue end with the run",
          "[llm][cancel]") {
  ScriptedScript script;
  script.replies.push_back({"4"});
  script.latency = 600'000ms;
  auto scripted = std::make_shared<ScriptedLlm>(script);
  Cancel cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(20ms);
    cancel.cancel();
  });
  std::string kind;
  test::error_of([&] { scripted->complete(cancellable_request(cancel)); }, &kind);
  canceller.join();
  CHECK(kind == "run.cancelled");

  auto gate = std::make_shared<LlmGate>(1);
  LlmGate::Pass holder(*gate, nullptr);  // the gate's one place is taken
  GatedLlm gated(scripted, gate);
  Cancel queued(nullptr, Cancel::Clock::now() + 30ms, "waited too long");
  CHECK(test::error_of([&] { gated.complete(cancellable_request(queued)); }, &kind) == "waited too long");
  CHECK(kind == "run.timeout");
}

TEST_CASE("provider cancel: the scripted provider's stream ends with the run, however long its answer",
          "[llm][cancel]") {
  ScriptedScript script;
  std::string answer;
  for (int i = 0; i < 100000; ++i) answer += "word ";
  script.replies.push_back({answer});
  ScriptedLlm scripted(script);
  Cancel cancel;
  // A watcher of the stream that stops the run at its tenth word, as a client leaving would.
  struct StopAtTen : EventSink {
    Cancel& cancel;
    int tokens = 0;
    explicit StopAtTen(Cancel& c) : cancel(c) {}
    void receive(const Event& e, const EventPlace&) override {
      if (e.type() == EventType::LlmToken && ++tokens == 10) cancel.cancel();
    }
  } watcher(cancel);
  LlmRequest request = cancellable_request(cancel, true);
  request.events = &watcher;
  std::string kind;
  test::error_of([&] { scripted.complete(request); }, &kind);
  CHECK(kind == "run.cancelled");
  CHECK(watcher.tokens == 10);  // not one word more went out
}

TEST_CASE("provider cancel: a run already stopped sends no request", "[llm][cancel]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat("4"));
  OpenAiLlm openai(test::openai_config(server));
  Cancel cancel;
  cancel.cancel();
  std::string kind;
  test::error_of([&] { openai.complete(cancellable_request(cancel)); }, &kind);
  CHECK(kind == "run.cancelled");
  CHECK(server.requests().empty());
}
