// Model calls from runs on fibers: one transport thread drives them all, while each fiber gives its thread up.
// Every edge a call on a thread has (cancel, deadline, stream, stop sequence, stall, refused connection) ends the
// same way on a fiber.
#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/llm/openai_llm.h"
#include "support/llm_test_support.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;
using namespace std::chrono_literals;
using engine::test::MockLlmServer;

namespace {

// Runs `body` on a fiber of a one-thread pool and waits for it; what it throws comes out here.
void on_a_fiber(const std::function<void()>& body) {
  FiberPool pool(1);
  pool.spawn([&] {
    REQUIRE(FiberPool::current() != nullptr);
    body();
  });
  pool.join();
}

LlmRequest fiber_request(const Cancel* cancel = nullptr, bool stream = false, std::vector<std::string> stop = {}) {
  LlmRequest r;
  r.messages.push_back({"user", "2+2?", {}, ""});
  r.cancel = cancel;
  r.stream = stream;
  r.stop = std::move(stop);
  return r;
}

// Scripts `count` answers, "answer 0" on.
void enqueue_answers(MockLlmServer& server, int count) {
  for (int i = 0; i < count; ++i) server.enqueue(MockLlmServer::chat("answer " + std::to_string(i)));
}

// Makes `calls` calls at once, from fibers on one thread, and returns their answers in the order they came.
std::vector<std::string> answers_of_calls_at_once(const OpenAiLlm& llm, int calls) {
  std::mutex mutex;
  std::vector<std::string> answers;
  FiberPool pool(1);
  for (int i = 0; i < calls; ++i)
    pool.spawn([&] {
      std::string text = llm.complete(fiber_request()).text;
      std::lock_guard lock(mutex);
      answers.push_back(text);
    });
  pool.join();
  return answers;
}

}  // namespace

TEST_CASE("transport: eight calls from fibers on one thread are in flight at once, each with its own answer",
          "[llm][http][fiber]") {
  MockLlmServer server;
  enqueue_answers(server, 8);
  // No answer until all eight requests have come: had one thread waited for each call in turn, the first would
  // never be answered in time.
  server.answer_after_requests(8);
  OpenAiLlm llm(test::openai_config(server));
  std::vector<std::string> answers = answers_of_calls_at_once(llm, 8);
  std::sort(answers.begin(), answers.end());
  REQUIRE(answers.size() == 8);
  for (int i = 0; i < 8; ++i) CHECK(answers[static_cast<size_t>(i)] == "answer " + std::to_string(i));
  CHECK(server.gate_timeouts() == 0);
}

// The transport spreads its transfers over several curl multi handles, each with a connection cache of its own.
// Calls beyond one cache's share must still all be in flight together, and a second round of as many calls must
// find the connections the first left open, whichever cache it lands in.
TEST_CASE("transport: forty calls in flight at once get their own answers, and a second round opens no connection",
          "[llm][http][fiber]") {
  constexpr int kCalls = 40;
  MockLlmServer server(kCalls);
  enqueue_answers(server, 2 * kCalls);
  server.answer_after_requests(kCalls);  // the first round all in flight before any answer
  OpenAiLlm llm(test::openai_config(server));
  std::vector<std::string> answers = answers_of_calls_at_once(llm, kCalls);
  REQUIRE(server.requests().size() == kCalls);
  CHECK(server.gate_timeouts() == 0);
  for (auto& answer : answers_of_calls_at_once(llm, kCalls)) answers.push_back(std::move(answer));
  std::sort(answers.begin(), answers.end());
  REQUIRE(answers.size() == 2 * kCalls);
  CHECK(std::adjacent_find(answers.begin(), answers.end()) == answers.end());  // no answer given twice
  std::set<int> connections;
  for (const auto& r : server.requests()) connections.insert(r.client_port);
  CHECK(connections.size() == kCalls);
}

TEST_CASE("transport: a cancelled call on a fiber is abandoned, whole or streamed, and the next call works",
          "[llm][http][fiber]") {
  MockLlmServer server;
  auto late_whole = MockLlmServer::chat("4");
  late_whole.delay_ms = 60'000;
  auto late_stream = MockLlmServer::chat_stream({"4"});
  late_stream.delay_ms = 60'000;
  server.enqueue(late_whole);
  server.enqueue(late_stream);
  server.enqueue(MockLlmServer::chat("four"));
  auto config = test::openai_config(server);
  config.timeouts.total = 600'000ms;
  OpenAiLlm llm(config);
  for (bool stream : {false, true}) {
    INFO("stream: " << stream);
    Cancel cancel;
    std::thread canceller([&] {
      test::wait_until([&] { return server.requests().size() >= (stream ? 2u : 1u); }, 10000);
      cancel.cancel();
    });
    std::string message, kind;
    on_a_fiber([&] { message = test::error_of([&] { llm.complete(fiber_request(&cancel, stream)); }, &kind); });
    canceller.join();
    CHECK(message == "the run was cancelled");
    CHECK(kind == "run.cancelled");
  }
  std::string text;
  on_a_fiber([&] { text = llm.complete(fiber_request()).text; });
  CHECK(text == "four");
}

TEST_CASE("transport: a deadline ends a slow call on a fiber with run.timeout", "[llm][http][fiber]") {
  MockLlmServer server;
  auto late = MockLlmServer::chat("4");
  late.delay_ms = 60'000;
  server.enqueue(late);
  auto config = test::openai_config(server);
  config.timeouts.total = 600'000ms;
  OpenAiLlm llm(config);
  Cancel step(nullptr, Cancel::Clock::now() + 50ms, "the timeout of step 'ask' (50 ms) passed");
  std::string message, kind;
  on_a_fiber([&] { message = test::error_of([&] { llm.complete(fiber_request(&step)); }, &kind); });
  CHECK(message == "the timeout of step 'ask' (50 ms) passed");
  CHECK(kind == "run.timeout");
}

TEST_CASE("transport: a stream on a fiber arrives in tokens and a stop sequence leaves it early",
          "[llm][http][fiber]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat_stream({"Action: calc\nAction Input: 2+2\nObs", "ervation: ignored", " more"}));
  OpenAiLlm llm(test::openai_config(server));
  test::EventLog log;
  LlmResponse response;
  on_a_fiber([&] {
    LlmRequest r = fiber_request(nullptr, true, {"\nObservation:"});
    r.events = &log;
    response = llm.complete(r);
  });
  std::string shown;
  for (const auto& e : log.events)
    if (e.type == "llm_token") shown += e.data["text"].get<std::string>();
  CHECK(response.text == "Action: calc\nAction Input: 2+2");
  CHECK(shown == response.text);
  CHECK(response.finish_reason == "stop");
}

TEST_CASE("transport: a stream that stalls on a fiber ends at the read timeout", "[llm][http][fiber]") {
  MockLlmServer server;
  MockLlmServer::Reply stall;
  stall.pieces = {MockLlmServer::chat_delta("Thought: I")};
  stall.stall_after_ms = 2500;
  server.enqueue(stall);
  auto config = test::openai_config(server);
  config.timeouts.read = 200ms;
  config.retry.max_retries = 0;
  OpenAiLlm llm(config);
  std::string message;
  on_a_fiber([&] { message = test::error_of([&] { llm.complete(fiber_request(nullptr, true)); }); });
  CHECK(message == "openai: no answer from " + server.base_url() +
                       "/chat/completions after 1 attempt: the server sent nothing for 200 ms (read timeout)");
}

TEST_CASE("transport: a refused connection on a fiber is reported as on a thread", "[llm][http][fiber]") {
  std::string base;
  {
    MockLlmServer gone;
    base = gone.base_url();
  }  // nothing listens there now
  OpenAiConfig config;
  setenv("ENGINE_TEST_OPENAI_KEY", test::kTestKey, 1);
  config.base_url = base;
  config.model = "test-model";
  config.api_key_env = "ENGINE_TEST_OPENAI_KEY";
  config.retry = test::fast_retries();
  config.retry.max_retries = 0;
  OpenAiLlm llm(config);
  std::string on_thread, on_fiber, kind_thread, kind_fiber;
  on_thread = test::error_of([&] { llm.complete(fiber_request()); }, &kind_thread);
  on_a_fiber([&] { on_fiber = test::error_of([&] { llm.complete(fiber_request()); }, &kind_fiber); });
  // The same words but for curl's "after N ms", which may differ by a millisecond.
  auto without_time = [](std::string m) {
    size_t at = m.find(" after ", m.find("Failed to connect"));
    size_t end = m.find(" ms", at);
    return at == std::string::npos || end == std::string::npos ? m : m.erase(at, end + 3 - at);
  };
  CHECK(kind_fiber == "llm.unavailable");
  CHECK(kind_fiber == kind_thread);
  CHECK(without_time(on_fiber) == without_time(on_thread));
  CHECK(without_time(on_fiber) == "openai: no answer from " + base +
                                      "/chat/completions after 1 attempt: Failed to connect to 127.0.0.1 port " +
                                      base.substr(base.rfind(':') + 1, base.find("/v1") - base.rfind(':') - 1) +
                                      ": Couldn't connect to server");
}
