// Anthropic's Messages API against the loopback server: the request as the API wants it, whole and streamed
// answers, tool_use blocks, and faults ending as documented with no key in any message.
#include <catch2/catch.hpp>

#include "engine/llm/anthropic_llm.h"
#include "support/llm_test_support.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;
using engine::test::MockLlmServer;

namespace {

LlmRequest chat_request(bool stream = false) {
  LlmRequest r;
  r.messages = {{"system", "You are terse."}, {"system", "Use tools."}, {"user", "2+2?"}};
  r.stop = {"\nObservation:"};
  r.temperature = 0.0;
  r.stream = stream;
  return r;
}

}  // namespace

TEST_CASE("anthropic: the system prompt apart, max_tokens always, stop_sequences, key and version headers",
          "[llm][anthropic]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::message("Final Answer: 4\nObservation: x", 21, 4));
  AnthropicLlm llm(test::anthropic_config(server));
  LlmRequest req = chat_request();
  req.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  LlmResponse r = llm.complete(req);
  CHECK(r.text == "Final Answer: 4");
  CHECK(r.finish_reason == "stop");
  CHECK(r.usage.prompt_tokens == 21);
  CHECK(r.usage.completion_tokens == 4);
  CHECK(r.model == "claude-test");
  CHECK(r.id == "msg_test");
  auto sent = server.requests();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].traceparent == req.traceparent);
  CHECK(sent[0].path == "/v1/messages");
  CHECK(sent[0].api_key == test::kTestKey);
  CHECK(sent[0].authorization.empty());
  CHECK(sent[0].anthropic_version == "2023-06-01");
  CHECK(sent[0].body == Value::parse(R"({"model": "claude-test", "max_tokens": 4096,
      "system": "You are terse.\n\nUse tools.", "messages": [{"role": "user", "content": "2+2?"}],
      "stop_sequences": ["\nObservation:"], "temperature": 0.0})"));
}

TEST_CASE("anthropic: tool calls and results as tool_use and tool_result blocks, tool_choice as Anthropic names it",
          "[llm][anthropic]") {
  MockLlmServer server;
  server.enqueue({200, R"({"type": "message", "content": [{"type": "text", "text": "Let me compute."},
      {"type": "tool_use", "id": "toolu_1", "name": "calculator", "input": {"expression": "2+2"}}],
      "stop_reason": "tool_use", "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 3}})"});
  AnthropicConfig c = test::anthropic_config(server);
  c.parallel_tool_calls = false;
  AnthropicLlm llm(c);
  LlmRequest r;
  r.messages = {{"user", "2+2?"},
                {"assistant", "", {{"toolu_0", "calculator", "{\"expression\":\"1+1\"}"}}},
                {"tool", "2", {}, "toolu_0"}};
  r.tools = {{"calculator", "does arithmetic", Value{{"type", "object"}}}};
  r.tool_choice = "required";
  LlmResponse out = llm.complete(r);
  CHECK(out.text == "Let me compute.");
  CHECK(out.finish_reason == "tool_calls");
  REQUIRE(out.tool_calls.size() == 1);
  CHECK(out.tool_calls[0].id == "toolu_1");
  CHECK(out.tool_calls[0].arguments == "{\"expression\":\"2+2\"}");
  CHECK(out.usage.prompt_tokens == 15);
  Value body = server.requests()[0].body;
  CHECK(body["messages"] == Value::parse(R"([{"role": "user", "content": "2+2?"},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_0", "name": "calculator",
                                         "input": {"expression": "1+1"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "2"}]}])"));
  CHECK(body["tools"] == Value::parse(R"([{"name": "calculator", "description": "does arithmetic",
      "input_schema": {"type": "object"}}])"));
  CHECK(body["tool_choice"] == Value::parse(R"({"type": "any", "disable_parallel_tool_use": true})"));
}

TEST_CASE("anthropic: a streamed answer, with pings, usage from message_start and message_delta", "[llm][anthropic][stream]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::message_stream({"Final", " Answer:", " 4"}, 40, 9));
  AnthropicLlm llm(test::anthropic_config(server));
  test::EventLog log;
  LlmRequest req = chat_request(true);
  req.events = &log;
  LlmResponse r = llm.complete(req);
  CHECK(r.text == "Final Answer: 4");
  CHECK(r.usage.prompt_tokens == 40);
  CHECK(r.usage.completion_tokens == 9);
  CHECK(r.model == "claude-test");  // from message_start
  CHECK(r.id == "msg_test");
  std::string shown;
  for (const auto& e : log.events) shown += e.data["text"].get<std::string>();
  CHECK(shown == "Final Answer: 4");
  CHECK(server.requests()[0].body["stream"] == true);
}

TEST_CASE("anthropic: streamed tool_use input arrives as partial JSON and is assembled", "[llm][anthropic][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply r;
  auto ev = [](Value v) { return MockLlmServer::sse(v, v["type"].get<std::string>()); };
  r.pieces = {ev({{"type", "message_start"}, {"message", {{"usage", {{"input_tokens", 7}, {"output_tokens", 1}}}}}}),
              ev({{"type", "content_block_start"}, {"index", 0},
                  {"content_block", {{"type", "tool_use"}, {"id", "toolu_9"}, {"name", "calculator"}, {"input", Value::object()}}}}),
              ev({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "input_json_delta"}, {"partial_json", "{\"expr"}}}}),
              ev({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "input_json_delta"}, {"partial_json", "ession\": \"6*7\"}"}}}}),
              ev({{"type", "content_block_stop"}, {"index", 0}}),
              ev({{"type", "message_delta"}, {"delta", {{"stop_reason", "tool_use"}}}, {"usage", {{"output_tokens", 12}}}}),
              ev({{"type", "message_stop"}})};
  server.enqueue(r);
  AnthropicLlm llm(test::anthropic_config(server));
  LlmResponse out = llm.complete(chat_request(true));
  CHECK(out.finish_reason == "tool_calls");
  REQUIRE(out.tool_calls.size() == 1);
  CHECK(out.tool_calls[0].name == "calculator");
  CHECK(out.tool_calls[0].arguments == "{\"expression\": \"6*7\"}");
  CHECK(out.usage.completion_tokens == 12);
}

TEST_CASE("anthropic: an overloaded error event mid-stream is retried and a 529 too", "[llm][anthropic][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply overloaded;
  overloaded.pieces = {MockLlmServer::sse({{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}},
                                          "error")};
  server.enqueue(overloaded);
  server.enqueue({529, R"({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})", {{"retry-after", "0"}}});
  server.enqueue(MockLlmServer::message_stream({"ok"}));
  AnthropicLlm llm(test::anthropic_config(server));
  test::EventLog log;
  LlmRequest req = chat_request(true);
  req.events = &log;
  CHECK(llm.complete(req).text == "ok");
  REQUIRE(log.events.size() >= 2);
  CHECK(log.events[0].data["error"] == "anthropic: the server reported an error: Overloaded");
  CHECK(log.events[1].data["error"] == "HTTP 529: Overloaded");
}

TEST_CASE("anthropic: a 401 is shown with the key redacted and not retried and a cut stream is retried",
          "[llm][anthropic]") {
  MockLlmServer server;
  server.enqueue({401, std::string(R"({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key )") +
                           test::kTestKey + "\"}}"});
  AnthropicLlm llm(test::anthropic_config(server));
  std::string kind;
  std::string e = test::error_of([&] { llm.complete(chat_request()); }, &kind);
  CHECK(kind == "llm.http_error");
  CHECK(e == "anthropic: " + server.base_url() + "/messages answered HTTP 401: invalid x-api-key ***");
  MockLlmServer::Reply cut = MockLlmServer::message_stream({"never", "ends"});
  cut.pieces.pop_back();  // no message_stop
  server.enqueue(cut);
  server.enqueue(MockLlmServer::message_stream({"fine"}));
  CHECK(llm.complete(chat_request(true)).text == "fine");
}

TEST_CASE("anthropic: a missing key is reported before any request", "[llm][anthropic]") {
  MockLlmServer server;
  AnthropicConfig c = test::anthropic_config(server);
  c.api_key_env = "ENGINE_TEST_UNSET_ANTHROPIC_KEY";
  unsetenv("ENGINE_TEST_UNSET_ANTHROPIC_KEY");
  CHECK(test::error_of([&] { AnthropicLlm(c).complete(chat_request()); }) ==
        "anthropic: the environment variable ENGINE_TEST_UNSET_ANTHROPIC_KEY is not set (the API key is read from it)");
  CHECK(server.requests().empty());
}

TEST_CASE("anthropic: an answer without content, or with fields of the wrong type, is a bad response", "[llm][anthropic]") {
  MockLlmServer server;
  server.enqueue({200, R"({"type": "message", "stop_reason": "end_turn"})"});
  server.enqueue({200, R"({"type": "message", "content": [{"type": "text", "text": 7}], "usage": "lots"})"});
  AnthropicLlm llm(test::anthropic_config(server));
  std::string kind;
  CHECK(test::error_of([&] { llm.complete(chat_request()); }, &kind) ==
        "anthropic: the server's answer has no content: '{\"type\": \"message\", \"stop_reason\": \"end_turn\"}'");
  CHECK(kind == "llm.bad_response");
  LlmResponse r = llm.complete(chat_request());  // a non-string text reads as empty, a non-object usage as none
  CHECK(r.text.empty());
  CHECK(r.usage.total() == 0);
}
