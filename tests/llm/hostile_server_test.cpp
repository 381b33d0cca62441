// A server that is broken or hostile: answers nested 200,000 deep, bodies and events past their bounds, waits it
// asks for that are no waits, counts past 2^63, streams cut before their first event or going on after their end,
// and the API key quoted back in errors, answers and streams. Each ends as documented, with no piece of the key in
// any message, answer or shown token.
#include <catch2/catch.hpp>

#include "engine/core/redact.h"
#include "engine/llm/anthropic_llm.h"
#include "engine/llm/openai_llm.h"
#include "support/llm_test_support.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;
using engine::test::MockLlmServer;

namespace {

const std::string kKeyText = test::kTestKey;


LlmRequest question_request(bool stream = false, EventSink* events = nullptr) {
  LlmRequest r;
  r.prompt = "Question: 2+2?\nThought:";
  r.stream = stream;
  r.events = events;
  return r;
}


std::string shown_text(const test::EventLog& log) {
  std::string out;
  for (const auto& e : log.events)
    if (e.type == "llm_token") out += e.data["text"].get<std::string>();
  return out;
}

}  // namespace

TEST_CASE("hostile: an answer nested 200,000 deep is a bad response, whole or streamed, from either API",
          "[llm][hostile]") {
  std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
  std::string deep_object;
  for (int i = 0; i < 200'000; ++i) deep_object += "{\"a\":";
  deep_object += "1" + std::string(200'000, '}');
  MockLlmServer server;
  server.enqueue({200, deep});
  server.enqueue({200, "{\"choices\": [{\"message\": {\"content\": \"x\", \"tool_calls\": " + deep + "}}]}"});
  MockLlmServer::Reply streamed;
  streamed.pieces = {MockLlmServer::chat_delta("Thought:"), "data: " + deep_object + "\n\n"};
  server.enqueue(streamed);
  OpenAiLlm openai(test::openai_config(server));
  std::string kind;
  CHECK(test::error_of([&] { openai.complete(question_request()); }, &kind) ==
        "openai: the server's answer is JSON nested deeper than 128 levels: '" + std::string(200, '[') + "...'");
  CHECK(kind == "llm.bad_response");
  CHECK(test::error_of([&] { openai.complete(question_request()); }, &kind).rfind(
            "openai: the server's answer is JSON nested deeper than 128 levels: '{\"choices\"", 0) == 0);
  CHECK(test::error_of([&] { openai.complete(question_request(true)); }, &kind).rfind(
            "openai: a stream event is JSON nested deeper than 128 levels: '{\"a\":{\"a\":", 0) == 0);
  CHECK(kind == "llm.bad_response");

  server.enqueue({200, deep_object});
  MockLlmServer::Reply anthropic_stream;
  anthropic_stream.pieces = {"event: message_start\ndata: " + deep + "\n\n"};
  server.enqueue(anthropic_stream);
  AnthropicLlm anthropic(test::anthropic_config(server));
  CHECK(test::error_of([&] { anthropic.complete(question_request()); }, &kind).rfind(
            "anthropic: the server's answer is JSON nested deeper than 128 levels", 0) == 0);
  CHECK(test::error_of([&] { anthropic.complete(question_request(true)); }, &kind).rfind(
            "anthropic: a stream event is JSON nested deeper than 128 levels", 0) == 0);
  CHECK(kind == "llm.bad_response");
}

// As the OpenAI and Anthropic SDKs do: a wait that is not a finite number of seconds within the cap is no wait the
// server may impose, and the engine's own backoff (at most 5 ms here) is used.
TEST_CASE("hostile: Retry-After or retry-after-ms that is not a finite number within the cap falls back to the backoff",
          "[llm][hostile]") {
  struct Case {
    const char* header;
    std::string value;
    long wait;  // -1: the backoff
  };
  for (const Case& c : std::vector<Case>{{"Retry-After", "inf", -1},
                                         {"Retry-After", "1e300", -1},
                                         {"Retry-After", "NaN", -1},
                                         {"Retry-After", "nan", -1},
                                         {"Retry-After", "-5", -1},
                                         {"Retry-After", "99999999999999999999", -1},
                                         {"Retry-After", "0.021", -1},  // 21 ms: past the 20 ms cap here
                                         {"Retry-After", "0x10", -1},
                                         {"Retry-After", "0.015", 15},
                                         {"retry-after-ms", "inf", -1},
                                         {"retry-after-ms", "1e300", -1},
                                         {"retry-after-ms", "12", 12}}) {
    INFO(c.header << ": " << c.value);
    MockLlmServer server;
    MockLlmServer::Reply limited{429, R"({"error": {"message": "slow down"}})"};
    limited.headers = {{c.header, c.value}};
    server.enqueue(limited);
    server.enqueue(MockLlmServer::chat("Final Answer: 4"));
    OpenAiConfig cfg = test::openai_config(server);
    cfg.retry.max_retry_after = std::chrono::milliseconds(20);
    OpenAiLlm llm(cfg);
    test::EventLog log;
    CHECK(llm.complete(question_request(false, &log)).text == "Final Answer: 4");
    REQUIRE(log.events.size() == 1);
    long wait = log.events[0].data["wait_ms"].get<long>();
    if (c.wait < 0) CHECK((wait >= 0 && wait <= 5));
    else CHECK(wait == c.wait);
  }
}

TEST_CASE("hostile: a body past 64 MiB ends the transfer and is not retried", "[llm][hostile]") {
  MockLlmServer server;
  server.enqueue({200, std::string((size_t{64} << 20) + 1024, ' ')});
  server.enqueue({500, std::string((size_t{64} << 20) + 1024, 'x')});
  OpenAiLlm llm(test::openai_config(server));
  std::string kind;
  CHECK(test::error_of([&] { llm.complete(question_request()); }, &kind) ==
        "the server's answer passed 64 MiB; the transfer was stopped");
  CHECK(kind == "http.too_large");
  CHECK(test::error_of([&] { llm.complete(question_request()); }, &kind) ==
        "the server's answer passed 64 MiB; the transfer was stopped");
  CHECK(server.requests().size() == 2);
}

TEST_CASE("hostile: a stream event of endless data lines is refused past 16 MiB", "[llm][hostile]") {
  MockLlmServer server;
  MockLlmServer::Reply r;
  std::string lines;
  std::string line = "data: " + std::string(1018, 'a') + "\n";  // 1 KiB a line
  for (int i = 0; i < 1024; ++i) lines += line;
  r.pieces = {MockLlmServer::chat_delta("Thought:")};
  for (int i = 0; i < 17; ++i) r.pieces.push_back(lines);
  r.piece_delay_ms = 0;
  server.enqueue(r);
  OpenAiLlm llm(test::openai_config(server));
  std::string kind;
  CHECK(test::error_of([&] { llm.complete(question_request(true)); }, &kind) ==
        "the server sent a stream event of more than 16 MiB");
  CHECK(kind == "http.bad_stream");
}

TEST_CASE("hostile: a stream cut before its first complete event is retried as a cut stream", "[llm][hostile]") {
  MockLlmServer server;
  for (const std::string& head : {std::string("data: {\"choices\": [{\"delta\": {\"content\": \"Th"),
                                  std::string(": keep-alive\n\n"), std::string("")}) {
    MockLlmServer::Reply cut;
    cut.pieces = {head.empty() ? std::string("\n") : head};
    server.enqueue(cut);
  }
  server.enqueue(MockLlmServer::chat_stream({"Final Answer: 4"}));
  OpenAiConfig cfg = test::openai_config(server);
  cfg.retry.max_retries = 3;
  OpenAiLlm llm(cfg);
  test::EventLog log;
  CHECK(llm.complete(question_request(true, &log)).text == "Final Answer: 4");
  std::vector<std::string> errors;
  for (const auto& e : log.events)
    if (e.type == "llm_retry") errors.push_back(e.data["error"]);
  CHECK(errors == std::vector<std::string>(3, "the stream ended before its first event"));
}

TEST_CASE("hostile: events after the end marker cannot change or fail a finished answer", "[llm][hostile]") {
  MockLlmServer server;
  MockLlmServer::Reply openai;
  openai.pieces = {MockLlmServer::chat_delta("Final Answer: 4"), "data: [DONE]\n\n", "data: {not json\n\n", MockLlmServer::chat_delta(" and more"),
                   MockLlmServer::sse(Value{{"error", {{"message", "late"}, {"type", "invalid_request_error"}}}})};
  server.enqueue(openai);
  OpenAiLlm llm(test::openai_config(server));
  CHECK(llm.complete(question_request(true)).text == "Final Answer: 4");

  MockLlmServer::Reply anthropic = MockLlmServer::message_stream({"Final Answer: 4"});
  anthropic.pieces.push_back("event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\"}}\n\n");
  anthropic.pieces.push_back("data: not json\n\n");
  server.enqueue(anthropic);
  AnthropicLlm claude(test::anthropic_config(server));
  CHECK(claude.complete(question_request(true)).text == "Final Answer: 4");
}

TEST_CASE("hostile: token counts past 2^63 or negative are clamped, never read as -1", "[llm][hostile]") {
  MockLlmServer server;
  server.enqueue({200, R"({"choices": [{"message": {"content": "ok"}}],
                           "usage": {"prompt_tokens": 18446744073709551615, "completion_tokens": -7}})"});
  server.enqueue({200, R"({"content": [{"type": "text", "text": "ok"}],
                           "usage": {"input_tokens": 18446744073709551615, "cache_read_input_tokens": 18446744073709551615,
                                     "output_tokens": 1e300}})"});
  OpenAiLlm openai(test::openai_config(server));
  LlmResponse r = openai.complete(question_request());
  CHECK(r.usage.prompt_tokens == 1'000'000'000'000'000L);
  CHECK(r.usage.completion_tokens == 0);
  AnthropicLlm claude(test::anthropic_config(server));
  r = claude.complete(question_request());
  CHECK(r.usage.prompt_tokens == 2'000'000'000'000'000L);
  CHECK(r.usage.completion_tokens == 0);
}

TEST_CASE("hostile: a key quoted back in an error body is masked before the body is cut", "[llm][hostile]") {
  MockLlmServer server;
  // the key straddles the excerpt's 300-character cut in a body that is no API error, and is whole in one that is
  std::string filler(280, '.');
  server.enqueue({401, filler + " your key " + kKeyText + " is wrong"});
  server.enqueue({401, R"({"error": {"message": "Incorrect API key provided: )" + kKeyText + R"(", "type": "auth"}})"});
  server.enqueue({400, "{\"error\": {\"message\": \"bad \\u001b[2J\\u001b]0;pwned\\u0007 request\"}}"});
  OpenAiLlm llm(test::openai_config(server));
  for (int i = 0; i < 2; ++i) {
    std::string msg = test::error_of([&] { llm.complete(question_request()); });
    INFO(msg);
    CHECK_FALSE(test::holds_piece_of_key(msg, kKeyText));
    CHECK(msg.find("***") != std::string::npos);
  }
  std::string msg = test::error_of([&] { llm.complete(question_request()); });
  CHECK(msg == "openai: " + server.base_url() +
                   "/chat/completions answered HTTP 400: bad \\x1b[2J\\x1b]0;pwned\\x07 request");
}

TEST_CASE("hostile: a key in the model's answer, whole or streamed in pieces, is masked everywhere", "[llm][hostile]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat("The key is " + kKeyText + ". Final Answer: 4"));
  std::vector<std::string> pieces;
  std::string text = "Thought: " + kKeyText.substr(0, 10) + " then " + kKeyText + "!";
  for (size_t i = 0; i < text.size(); i += 3) pieces.push_back(text.substr(i, 3));
  server.enqueue(MockLlmServer::chat_stream(pieces));
  server.enqueue({200, R"({"choices": [{"message": {"content": null, "tool_calls": [{"id": "call_)" + kKeyText +
                           R"(", "function": {"name": "calc", "arguments": "{\"input\": \")" + kKeyText + R"(\"}"}}]}}]})"});
  OpenAiLlm llm(test::openai_config(server));
  CHECK(llm.complete(question_request()).text == "The key is ***. Final Answer: 4");
  test::EventLog log;
  LlmResponse r = llm.complete(question_request(true, &log));
  CHECK(r.text == "Thought: *** then ***!");
  CHECK(shown_text(log) == r.text);
  LlmResponse calls = llm.complete(question_request());
  REQUIRE(calls.tool_calls.size() == 1);
  CHECK(calls.tool_calls[0].id == "call_***");
  CHECK(calls.tool_calls[0].arguments == "{\"input\": \"***\"}");

  server.enqueue(MockLlmServer::message_stream({"sk-test-01", "23456789", "abcdef is it"}));
  AnthropicLlm claude(test::anthropic_config(server));
  test::EventLog claude_log;
  r = claude.complete(question_request(true, &claude_log));
  CHECK(r.text == "*** is it");
  CHECK(shown_text(claude_log) == "*** is it");
}
