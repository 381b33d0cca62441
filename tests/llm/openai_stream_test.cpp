// Streaming from an OpenAI-compatible server, against the loopback server: tokens arrive as events, and every edge
// of a real stream (split lines and characters, keep-alives, errors mid-stream, cuts, stalls) ends as documented.
#include <catch2/catch.hpp>

#include "engine/llm/openai_llm.h"
#include "support/llm_test_support.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;
using engine::test::MockLlmServer;

namespace {

struct Streamed {
  LlmResponse response;
  std::string shown;  // the llm_token texts, joined
  test::EventLog log;
};

LlmRequest stream_request(std::vector<std::string> stop = {}) {
  LlmRequest r;
  r.prompt = "Question: 2+2?\nThought:";
  r.stop = std::move(stop);
  r.stream = true;
  return r;
}

void run_stream(const OpenAiLlm& llm, LlmRequest req, Streamed& out) {
  req.events = &out.log;
  out.response = llm.complete(req);
  for (const auto& e : out.log.events)
    if (e.type == "llm_token") out.shown += e.data["text"].get<std::string>();
}


}  // namespace

TEST_CASE("a streamed answer arrives as tokens, with the usage of its last chunk", "[llm][openai][stream]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat_stream({" I", " know.", "\nFinal Answer:", " 4"}, 30, 6));
  OpenAiLlm llm(test::openai_config(server));
  Streamed s;
  run_stream(llm, stream_request(), s);
  CHECK(s.response.text == " I know.\nFinal Answer: 4");
  CHECK(s.shown == s.response.text);
  CHECK(s.response.finish_reason == "stop");
  CHECK(s.response.usage.prompt_tokens == 30);
  CHECK(s.response.usage.completion_tokens == 6);
  CHECK_FALSE(s.response.usage_estimated);
  CHECK(s.response.model == "test-model-0613");
  CHECK(s.response.id == "chatcmpl-test");
  CHECK(server.requests()[0].traceparent.empty());  // an untraced run sends none
  Value body = server.requests()[0].body;
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"] == Value{{"include_usage", true}});
}

TEST_CASE("a stop sequence split across chunks is honoured, and the stream is left early", "[llm][openai][stream]") {
  MockLlmServer server;
  // Five stop sequences: the server gets four, the engine applies the fifth itself, across the chunk boundary.
  auto reply = MockLlmServer::chat_stream({"Action: calc\nAction Input: 2+2\nE", ": ignored", " and more"});
  server.enqueue(reply);
  OpenAiLlm llm(test::openai_config(server));
  Streamed s;
  run_stream(llm, stream_request({"A:", "B:", "C:", "D:", "\nE:"}), s);
  CHECK(s.response.text == "Action: calc\nAction Input: 2+2");
  CHECK(s.shown == s.response.text);
  CHECK(s.response.finish_reason == "stop");
  CHECK(s.response.usage_estimated);  // the usage chunk was never read
  CHECK(server.requests()[0].body["stop"].size() == 4);
}

TEST_CASE("keep-alives, CRLF line ends split between reads and a UTF-8 character split between reads",
          "[llm][openai][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply r;
  std::string japanese = MockLlmServer::chat_delta("日本");  // E6 97 A5 E6 9C AC
  size_t mid = japanese.find("\xE6\x97") + 2;
  r.pieces = {": keep-alive\r", "\n\r\n", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xC3",
              "\xA9 \"}}]}\r", "\n\r", "\n", japanese.substr(0, mid), japanese.substr(mid), ": ping\n\n",
              "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\r", "data: [DONE]\r\r"};
  server.enqueue(r);
  OpenAiLlm llm(test::openai_config(server));
  Streamed s;
  run_stream(llm, stream_request(), s);
  CHECK(s.response.text == "café 日本");
  CHECK(s.shown == "café 日本");
}

TEST_CASE("an error event mid-stream is retried, and the text shown before it is declared discarded",
          "[llm][openai][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply broken;
  broken.pieces = {MockLlmServer::chat_delta("Thought: half"),
                   MockLlmServer::sse(Value{{"error", {{"message", "The server had an error"}, {"type", "server_error"}}}})};
  server.enqueue(broken);
  server.enqueue(MockLlmServer::chat_stream({"Final Answer: 4"}));
  OpenAiLlm llm(test::openai_config(server));
  Streamed s;
  run_stream(llm, stream_request(), s);
  CHECK(s.response.text == "Final Answer: 4");
  // "Thought: hal" is shown, its "f" held back (a character of the key could start a piece of it); after the retry
  // the whole answer is shown, its last "4" held back the same way until the stream ends.
  auto types = s.log.types();
  CHECK(types == std::vector<std::string>{"llm_token", "llm_retry", "llm_token", "llm_token"});
  CHECK(s.log.events[0].data["text"] == "Thought: hal");
  CHECK(s.log.events[1].data["error"] == "openai: the server reported an error: The server had an error");
  CHECK(s.log.events[1].data["discarded_partial"] == true);
}

TEST_CASE("an error sent as plain JSON with status 200 is the server's message and a request error is not retried",
          "[llm][openai][stream]") {
  MockLlmServer server;
  server.enqueue({200, std::string(R"({"error": {"message": "model 'x' not found, key )") + test::kTestKey +
                           R"(", "type": "invalid_request_error"}})"});
  OpenAiLlm llm(test::openai_config(server));
  std::string kind;
  std::string e = test::error_of([&] { llm.complete(stream_request()); }, &kind);
  CHECK(kind == "llm.http_error");
  CHECK(e == "openai: the server reported an error: model 'x' not found, key ***");
  CHECK(server.requests().size() == 1);
}

TEST_CASE("a connection cut mid-stream is retried", "[llm][openai][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply cut;
  cut.pieces = {MockLlmServer::chat_delta("Thought: I")};
  cut.cut = true;
  server.enqueue(cut);
  server.enqueue(MockLlmServer::chat_stream({"Final Answer: 4"}));
  OpenAiLlm llm(test::openai_config(server));
  Streamed s;
  run_stream(llm, stream_request(), s);
  CHECK(s.response.text == "Final Answer: 4");
  CHECK(server.requests().size() == 2);
}

TEST_CASE("a stream that ends before its end marker is retried, then reported", "[llm][openai][stream]") {
  MockLlmServer server;
  for (int i = 0; i < 3; ++i) {
    MockLlmServer::Reply r;
    r.pieces = {MockLlmServer::chat_delta("Thought: I")};  // neither a finish_reason nor [DONE]
    server.enqueue(r);
  }
  OpenAiLlm llm(test::openai_config(server));
  std::string kind;
  std::string e = test::error_of([&] { llm.complete(stream_request()); }, &kind);
  CHECK(kind == "llm.unavailable");
  CHECK(e == "openai: no answer from " + server.base_url() +
                 "/chat/completions after 3 attempts; the last: openai: the stream ended before its end marker");
}

TEST_CASE("a stream that stalls longer than the read timeout is a timeout", "[llm][openai][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply stall;
  stall.pieces = {MockLlmServer::chat_delta("Thought: I")};
  stall.stall_after_ms = 2500;
  server.enqueue(stall);
  OpenAiConfig c = test::openai_config(server);
  c.timeouts.read = std::chrono::milliseconds(200);
  c.retry.max_retries = 0;
  OpenAiLlm llm(c);
  std::string e = test::error_of([&] { llm.complete(stream_request()); });
  CHECK(e == "openai: no answer from " + server.base_url() +
                 "/chat/completions after 1 attempt: the server sent nothing for 200 ms (read timeout)");
}

TEST_CASE("a whole answer may be silent for longer than the read timeout, until it is ready", "[llm][openai]") {
  MockLlmServer server;
  auto slow = MockLlmServer::chat("Final Answer: 4");
  slow.delay_ms = 1500;
  server.enqueue(slow);
  OpenAiConfig c = test::openai_config(server);
  c.timeouts.read = std::chrono::milliseconds(200);
  c.retry.max_retries = 0;
  LlmRequest r = stream_request();
  r.stream = false;
  CHECK(OpenAiLlm(c).complete(r).text == "Final Answer: 4");
}

TEST_CASE("tool-call deltas are assembled by index and a tool name the agent does not know is passed on as sent",
          "[llm][openai][stream]") {
  MockLlmServer server;
  auto call_delta = [](Value call) {
    return MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"delta", {{"tool_calls", {std::move(call)}}}}}}}});
  };
  MockLlmServer::Reply r;
  r.pieces = {call_delta({{"index", 0}, {"id", "call_1"}, {"type", "function"}, {"function", {{"name", "calculator"}, {"arguments", ""}}}}),
              call_delta({{"index", 1}, {"id", "call_2"}, {"type", "function"}, {"function", {{"name", "no_such_tool"}, {"arguments", "{\"q\""}}}}),
              call_delta({{"index", 0}, {"function", {{"arguments", "{\"expression\": "}}}}),
              call_delta({{"index", 0}, {"function", {{"arguments", "\"2+2\"}"}}}}),
              call_delta({{"index", 1}, {"function", {{"arguments", ": 1}"}}}}),
              MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"delta", Value::object()}, {"finish_reason", "tool_calls"}}}}}),
              "data: [DONE]\n\n"};
  server.enqueue(r);
  OpenAiLlm llm(test::openai_config(server));
  LlmRequest req = stream_request();
  req.tools = {{"calculator", "does arithmetic", Value{{"type", "object"}}}};
  req.tool_choice = "calculator";
  Streamed s;
  run_stream(llm, req, s);
  CHECK(s.response.finish_reason == "tool_calls");
  REQUIRE(s.response.tool_calls.size() == 2);
  CHECK(s.response.tool_calls[0].id == "call_1");
  CHECK(s.response.tool_calls[0].name == "calculator");
  CHECK(s.response.tool_calls[0].arguments == "{\"expression\": \"2+2\"}");
  CHECK(s.response.tool_calls[1].name == "no_such_tool");
  CHECK(s.response.tool_calls[1].arguments == "{\"q\": 1}");
  Value body = server.requests()[0].body;
  CHECK(body["tools"][0] == Value::parse(R"({"type": "function", "function": {"name": "calculator",
      "description": "does arithmetic", "parameters": {"type": "object"}}})"));
  CHECK(body["tool_choice"] == Value::parse(R"({"type": "function", "function": {"name": "calculator"}})"));
}

TEST_CASE("the legacy completions endpoint, whole and streamed", "[llm][openai][stream]") {
  MockLlmServer server;
  server.enqueue({200, R"({"choices": [{"text": " 4\nObservation: x", "finish_reason": "stop"}],
                          "usage": {"prompt_tokens": 5, "completion_tokens": 2}})"});
  MockLlmServer::Reply streamed;
  streamed.pieces = {MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"text", " 4"}, {"finish_reason", nullptr}}}}}),
                     MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"text", "!"}, {"finish_reason", "length"}}}}}),
                     "data: [DONE]\n\n"};
  server.enqueue(streamed);
  OpenAiConfig c = test::openai_config(server);
  c.endpoint = OpenAiEndpoint::Completions;
  c.max_tokens = 2;
  c.seed = 42;
  OpenAiLlm llm(c);
  LlmRequest whole = stream_request({"\nObservation:"});
  whole.stream = false;
  LlmResponse r = llm.complete(whole);
  CHECK(r.text == " 4");
  CHECK(r.usage.prompt_tokens == 5);
  Streamed s;
  run_stream(llm, stream_request(), s);
  CHECK(s.response.text == " 4!");
  CHECK(s.response.finish_reason == "length");
  auto sent = server.requests();
  CHECK(sent[0].path == "/v1/completions");
  CHECK(sent[0].body == Value::parse(R"({"model": "test-model", "prompt": "Question: 2+2?\nThought:",
      "stop": ["\nObservation:"], "max_tokens": 2, "seed": 42})"));
}

TEST_CASE("a chat prompt cannot go to the completions endpoint", "[llm][openai]") {
  MockLlmServer server;
  OpenAiConfig c = test::openai_config(server);
  c.endpoint = OpenAiEndpoint::Completions;
  LlmRequest r;
  r.messages = {{"user", "hi"}};
  CHECK(test::error_of([&] { OpenAiLlm(c).complete(r); }) ==
        "openai: the completions endpoint takes a text prompt, and this prompt is chat messages; give "
        "llm.chat_template or use endpoint: chat");
}

TEST_CASE("response_format, seed, parallel_tool_calls and tool messages are sent as the API names them", "[llm][openai]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat("{}"));
  OpenAiConfig c = test::openai_config(server);
  c.seed = 7;
  c.response_format = Value{{"type", "json_object"}};
  c.parallel_tool_calls = false;
  OpenAiLlm llm(c);
  LlmRequest r;
  r.tool_choice = "any";  // Anthropic's word, sent as OpenAI's
  r.messages = {{"system", "Be brief."},
                {"user", "2+2?"},
                {"assistant", "", {{"call_1", "calculator", "{\"expression\":\"2+2\"}"}}},
                {"tool", "4", {}, "call_1"}};
  r.tools = {{"calculator", "does arithmetic", Value{{"type", "object"}}}};
  llm.complete(r);
  Value body = server.requests()[0].body;
  CHECK(body["seed"] == 7);
  CHECK(body["response_format"] == Value{{"type", "json_object"}});
  CHECK(body["parallel_tool_calls"] == false);
  CHECK(body["tool_choice"] == "required");
  CHECK(body["messages"][2] == Value::parse(R"({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
      "type": "function", "function": {"name": "calculator", "arguments": "{\"expression\":\"2+2\"}"}}]})"));
  CHECK(body["messages"][3] == Value::parse(R"({"role": "tool", "tool_call_id": "call_1", "content": "4"})"));
}

TEST_CASE("a stream event that is not JSON, or a tool call with a bad index, is a bad response", "[llm][openai][stream]") {
  MockLlmServer server;
  MockLlmServer::Reply garbage;
  garbage.pieces = {MockLlmServer::chat_delta("ok"), "data: {not json\n\n"};
  server.enqueue(garbage);
  MockLlmServer::Reply bad_index;
  bad_index.pieces = {MockLlmServer::sse(Value{{"choices", {{{"index", 0}, {"delta", {{"tool_calls", {{{"index", -1}}}}}}}}}})};
  server.enqueue(bad_index);
  OpenAiLlm llm(test::openai_config(server));
  std::string kind;
  CHECK(test::error_of([&] { llm.complete(stream_request()); }, &kind) ==
        "openai: a stream event is not JSON: '{not json'");
  CHECK(kind == "llm.bad_response");
  CHECK(test::error_of([&] { llm.complete(stream_request()); }) == "openai: a tool call delta has a bad index: -1");
  CHECK(server.requests().size() == 2);  // neither is retried: the server answered, and wrongly
}

TEST_CASE("an extra key replaces what the engine sends, and a null one removes it", "[llm][openai][stream]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat_stream({"ok"}));
  OpenAiConfig c = test::openai_config(server);
  c.extra = Value{{"stream_options", nullptr}, {"temperature", 0.5}, {"top_p", 0.9}};
  LlmRequest r = stream_request();
  r.temperature = 0.0;
  CHECK(OpenAiLlm(c).complete(r).text == "ok");
  Value body = server.requests()[0].body;
  CHECK_FALSE(body.contains("stream_options"));
  CHECK(body["temperature"] == 0.5);
  CHECK(body["top_p"] == 0.9);
}
