#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/llm/scripted_llm.h"

using namespace engine::llm;

namespace {
LlmRequest scripted_request(int call, std::vector<std::string> stop = {}, std::optional<int> max_tokens = std::nullopt) {
  LlmRequest r;
  r.prompt = "Question: hi\nThought:";
  r.call_index = call;
  r.stop = std::move(stop);
  r.max_tokens = max_tokens;
  return r;
}
}  // namespace

TEST_CASE("replies come in order, one per call", "[llm]") {
  ScriptedLlm llm(ScriptedScript{{"first", "second"}});
  CHECK(llm.complete(scripted_request(0)).text == "first");
  CHECK(llm.complete(scripted_request(1)).text == "second");
  try {
    llm.complete(scripted_request(2));
    FAIL("no error");
  } catch (const engine::Error& e) {
    CHECK(e.kind() == engine::ErrorKind::LlmScriptExhausted);
    CHECK(e.message() == "the scripted provider has 2 replies, and call 3 asked for one more");
  }
}

TEST_CASE("stop sequences cut at the earliest one, which is not returned", "[llm]") {
  ScriptedLlm llm(ScriptedScript{{"Action: calc\nAction Input: 1\nObservation: 2\nThought: x"}});
  auto r = llm.complete(scripted_request(0, {"\nThought:", "\nObservation:"}));
  CHECK(r.text == "Action: calc\nAction Input: 1");
  CHECK(r.finish_reason == "stop");
}

TEST_CASE("max_tokens cuts the text and reports length", "[llm]") {
  ScriptedLlm llm(ScriptedScript{{std::string(100, 'a')}});
  auto r = llm.complete(scripted_request(0, {}, 5));
  CHECK(r.text.size() == 20);
  CHECK(r.finish_reason == "length");
  CHECK(r.usage.completion_tokens == 5);
  CHECK(r.usage.prompt_tokens == 6);
  CHECK(r.usage_estimated);
}

TEST_CASE("rules: the first that accepts the prompt replies", "[llm]") {
  ScriptedScript s;
  s.rules.push_back({"never", [](std::string_view) -> std::optional<std::string> { return std::nullopt; }});
  s.rules.push_back({"echo", [](std::string_view p) -> std::optional<std::string> { return "saw " + std::string(p.substr(0, 8)); }});
  ScriptedLlm llm(std::move(s));
  CHECK(llm.complete(scripted_request(0)).text == "saw Question");
}

TEST_CASE("no rule matching is a clear error", "[llm]") {
  ScriptedScript s;
  s.rules.push_back({"never", [](std::string_view) -> std::optional<std::string> { return std::nullopt; }});
  try {
    ScriptedLlm(std::move(s)).complete(scripted_request(0));
    FAIL("no error");
  } catch (const engine::Error& e) {
    CHECK(e.kind() == engine::ErrorKind::LlmNoRule);
  }
}

TEST_CASE("cut_at_stop ignores empty stop strings", "[llm]") {
  std::string t = "abc";
  CHECK_FALSE(cut_at_stop(t, {""}));
  CHECK(t == "abc");
}

namespace {

ScriptedRule echo_rule(const std::string& label, ScriptedRule::Reads reads) {
  return {label, [label](std::string_view text) -> std::optional<ScriptedReply> { return label + " saw " + std::string(text); },
          reads};
}

LlmRequest messages_request(std::vector<ChatMessage> messages) {
  LlmRequest r;
  r.messages = std::move(messages);
  return r;
}

}  // namespace

TEST_CASE("a user rule reads the user's message while the user has the last word", "[llm]") {
  ScriptedScript s;
  s.rules.push_back(echo_rule("tool", ScriptedRule::Reads::ToolResult));
  s.rules.push_back(echo_rule("user", ScriptedRule::Reads::UserMessage));
  ScriptedLlm llm(std::move(s));
  auto asked = messages_request({{"system", "be brief"}, {"user", "earlier"}, {"assistant", "ok"}, {"user", "count this"}});
  CHECK(llm.complete(asked).text == "user saw count this");
  // A text prompt is the user's one message.
  CHECK(llm.complete(scripted_request(0)).text == "user saw Question: hi\nThought:");
}

TEST_CASE("a tool rule reads the last tool result while a tool has the last word", "[llm]") {
  ScriptedScript s;
  s.rules.push_back(echo_rule("user", ScriptedRule::Reads::UserMessage));
  s.rules.push_back(echo_rule("tool", ScriptedRule::Reads::ToolResult));
  ScriptedLlm llm(std::move(s));
  ChatMessage call{"assistant", "", {{"call_1", "word_count", "{}"}}, ""};
  auto answered = messages_request({{"user", "count this"}, call, {"tool", "2", {}, "call_1"}});
  CHECK(llm.complete(answered).text == "tool saw 2");
}

TEST_CASE("a tool rule never reads a text prompt and no rule for the last word is a clear error", "[llm]") {
  ScriptedScript s;
  s.rules.push_back(echo_rule("tool", ScriptedRule::Reads::ToolResult));
  ScriptedLlm llm(std::move(s));
  CHECK_THROWS_WITH(llm.complete(scripted_request(0)), Catch::Contains("no scripted rule matches"));
  CHECK_THROWS_WITH(llm.complete(messages_request({{"assistant", "hello"}})), Catch::Contains("no scripted rule matches"));
}
