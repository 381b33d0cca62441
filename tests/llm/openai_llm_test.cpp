// The OpenAI-compatible provider against a loopback server: the request it sends, and every fault ending as
// documented, with nothing retried that should not be and no key in any message.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "engine/core/error.h"
#include "engine/llm/openai_llm.h"
#include "support/llm_test_support.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;
using engine::test::MockLlmServer;

namespace {

const char* const kKey = test::kTestKey;

OpenAiConfig config_for(const MockLlmServer& server) { return test::openai_config(server); }

LlmRequest openai_request(std::vector<std::string> stop = {}) {
  LlmRequest r;
  r.prompt = "Question: 2+2?\nThought:";
  r.stop = std::move(stop);
  r.temperature = 0.0;
  r.max_tokens = 64;
  return r;
}

std::string openai_error(const OpenAiLlm& llm, const LlmRequest& r, std::string* kind = nullptr) {
  return test::error_of([&] { llm.complete(r); }, kind);
}

}  // namespace

TEST_CASE("a chat completion is requested and its text and usage returned", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat(" I know.\nFinal Answer: 4", 21, 9));
  OpenAiLlm llm(config_for(server));
  LlmRequest req = openai_request({"\nObservation:"});
  req.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  LlmResponse r = llm.complete(req);
  CHECK(r.text == " I know.\nFinal Answer: 4");
  CHECK(r.finish_reason == "stop");
  CHECK(r.usage.prompt_tokens == 21);
  CHECK(r.usage.completion_tokens == 9);
  CHECK_FALSE(r.usage_estimated);
  CHECK(r.model == "test-model-0613");  // the model that answered, as the server names it
  CHECK(r.id == "chatcmpl-test");
  auto sent = server.requests();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].authorization == std::string("Bearer ") + kKey);
  CHECK(sent[0].traceparent == req.traceparent);
  CHECK(sent[0].body == Value::parse(R"({"model": "test-model",
      "messages": [{"role": "user", "content": "Question: 2+2?\nThought:"}],
      "stop": ["\nObservation:"], "temperature": 0.0, "max_tokens": 64})"));
}

TEST_CASE("more stop sequences than the server takes: four are sent, the engine applies the rest", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat("Action: x\nAction Input: y\nE: cut here"));
  OpenAiLlm llm(config_for(server));
  LlmResponse r = llm.complete(openai_request({"A:", "B:", "C:", "D:", "\nE:"}));
  CHECK(r.text == "Action: x\nAction Input: y");
  CHECK(server.requests()[0].body["stop"].size() == 4);
}

TEST_CASE("a 429 with Retry-After is retried after the server's delay, reported as an event", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue({429, R"({"error": {"message": "Rate limit reached"}})", {{"Retry-After", "0.05"}}, 0});
  server.enqueue(MockLlmServer::chat("Final Answer: ok"));
  OpenAiLlm llm(config_for(server));
  test::EventLog log;
  LlmRequest req = openai_request();
  req.events = &log;
  CHECK(llm.complete(req).text == "Final Answer: ok");
  CHECK(server.requests().size() == 2);
  REQUIRE(log.events.size() == 1);
  CHECK(log.events[0].type == "llm_retry");
  CHECK(log.events[0].data["wait_ms"] == 50);
  CHECK(log.events[0].data["error"] == "HTTP 429: Rate limit reached");
}

TEST_CASE("a 429 holds the gate the provider shares: the other calls wait too, even when this one gives up",
          "[llm][openai]") {
  MockLlmServer server;
  server.enqueue({429, R"({"error": {"message": "Rate limit reached"}})", {{"retry-after-ms", "200"}}, 0});
  OpenAiConfig config = config_for(server);
  config.retry.max_retries = 0;
  config.retry.rate_gate = std::make_shared<LlmGate>(4);
  OpenAiLlm llm(config);
  std::string kind;
  test::error_of([&] { llm.complete(openai_request()); }, &kind);
  CHECK(kind == "llm.unavailable");
  // A call through the same gate cannot start within the server's 200 ms.
  Cancel soon(nullptr, std::chrono::steady_clock::now() + std::chrono::milliseconds(20), "the test's wait");
  CHECK_THROWS_WITH(LlmGate::Pass(*config.retry.rate_gate, &soon), Catch::Contains("the test's wait"));
  LlmGate::Pass after_the_hold(*config.retry.rate_gate, nullptr);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("a 500 then a success: the run never sees the fault", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue({500, "oops", {}, 0});
  server.enqueue({503, R"({"error": "overloaded"})", {{"retry-after-ms", "1"}}, 0});
  server.enqueue(MockLlmServer::chat("fine"));
  OpenAiLlm llm(config_for(server));
  CHECK(llm.complete(openai_request()).text == "fine");
  CHECK(server.requests().size() == 3);
}

TEST_CASE("a 401 is not retried, the server's message is shown with the key redacted", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue({401, std::string(R"({"error": {"message": "Incorrect API key provided: )") + kKey + R"("}})", {}, 0});
  OpenAiLlm llm(config_for(server));
  std::string kind;
  std::string e = openai_error(llm, openai_request(), &kind);
  CHECK(kind == "llm.http_error");
  CHECK(e == "openai: " + server.base_url() + "/chat/completions answered HTTP 401: Incorrect API key provided: ***");
  CHECK(e.find(kKey) == std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("x-should-retry: false stops the retries a 500 would get", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue({500, R"({"error": {"message": "do not retry"}})", {{"x-should-retry", "false"}}, 0});
  OpenAiLlm llm(config_for(server));
  CHECK(openai_error(llm, openai_request()).find("answered HTTP 500: do not retry") != std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("retries give up after max_retries with the last error", "[llm][openai]") {
  MockLlmServer server;
  for (int i = 0; i < 3; ++i) server.enqueue({502, "bad gateway", {}, 0});
  OpenAiLlm llm(config_for(server));
  std::string kind;
  std::string e = openai_error(llm, openai_request(), &kind);
  CHECK(kind == "llm.unavailable");
  CHECK(e == "openai: no answer from " + server.base_url() +
                 "/chat/completions after 3 attempts; the last: HTTP 502: 'bad gateway'");
}

TEST_CASE("a malformed answer is a clear error", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue({200, "{not json", {}, 0});
  server.enqueue({200, R"({"choices": []})", {}, 0});
  OpenAiLlm llm(config_for(server));
  std::string kind;
  CHECK(openai_error(llm, openai_request(), &kind) == "openai: the server's answer is not JSON: '{not json'");
  CHECK(kind == "llm.bad_response");
  CHECK(openai_error(llm, openai_request()) == "openai: the server's answer has no choices: '{\"choices\": []}'");
}

TEST_CASE("a stall longer than the timeout is retried, then reported", "[llm][openai]") {
  MockLlmServer server;
  for (int i = 0; i < 2; ++i) server.enqueue({200, "{}", {}, 400});
  OpenAiConfig c = config_for(server);
  c.timeouts.total = std::chrono::milliseconds(100);
  c.retry.max_retries = 1;
  OpenAiLlm llm(c);
  std::string e = openai_error(llm, openai_request());
  CHECK(e.rfind("openai: no answer from " + server.base_url() + "/chat/completions after 2 attempts; the last: ", 0) == 0);
  CHECK(e.find("imed out") != std::string::npos);
}

TEST_CASE("nothing listening: connection errors are retried, then reported", "[llm][openai]") {
  OpenAiConfig c;
  {
    MockLlmServer gone;
    c = config_for(gone);
  }  // the port is closed now
  OpenAiLlm llm(c);
  std::string e = openai_error(llm, openai_request());
  CHECK(e.find("after 3 attempts; the last: ") != std::string::npos);
  CHECK(e.find("onnect") != std::string::npos);
}

TEST_CASE("a missing key for OpenAI is reported before any request", "[llm][openai]") {
  MockLlmServer server;
  OpenAiConfig c = config_for(server);
  c.api_key_env = "ENGINE_TEST_UNSET_KEY";
  unsetenv("ENGINE_TEST_UNSET_KEY");
  CHECK(openai_error(OpenAiLlm(c), openai_request()) ==
        "openai: the environment variable ENGINE_TEST_UNSET_KEY is not set (the API key is read from it)");
  CHECK(server.requests().empty());
}

TEST_CASE("a provider reads its key once when it is built and never per request", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat("one", 1, 1));
  server.enqueue(MockLlmServer::chat("two", 1, 1));
  OpenAiConfig c = config_for(server);
  c.api_key_env = "ENGINE_TEST_BUILT_KEY";
  setenv("ENGINE_TEST_BUILT_KEY", "sk-built-0123456789", 1);
  OpenAiLlm llm(c);
  setenv("ENGINE_TEST_BUILT_KEY", "sk-later-9876543210", 1);
  llm.complete(openai_request());
  unsetenv("ENGINE_TEST_BUILT_KEY");
  llm.complete(openai_request());
  auto sent = server.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].authorization == "Bearer sk-built-0123456789");
  CHECK(sent[1].authorization == "Bearer sk-built-0123456789");
}

TEST_CASE("a 404 without an API error says to check the base_url, a model's 404 does not", "[llm][openai]") {
  MockLlmServer server;
  OpenAiConfig c = config_for(server);
  c.base_url = server.base_url().substr(0, server.base_url().size() - 3);  // without /v1, as users often write it
  std::string kind;
  std::string e = openai_error(OpenAiLlm(c), openai_request(), &kind);
  CHECK(kind == "llm.http_error");
  CHECK(e == "openai: " + c.base_url + "/chat/completions answered HTTP 404: '' (no such endpoint: check the base_url; "
             "OpenAI-compatible servers usually serve under /v1)");
  server.enqueue({404, R"({"error": {"message": "The model `gpt-9` does not exist", "type": "invalid_request_error"}})"});
  CHECK(openai_error(OpenAiLlm(config_for(server)), openai_request()) ==
        "openai: " + server.base_url() + "/chat/completions answered HTTP 404: The model `gpt-9` does not exist");
}
