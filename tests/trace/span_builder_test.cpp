// The spans of a run, built from its events: names and kinds as the GenAI conventions have them, each parent the
// span that holds it (a step's agent, an agent's calls, a workflow used as a tool under its tool call, for_each
// items under their step), one trace, and failures marked.
#include <catch2/catch.hpp>

#include <map>

#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "engine/trace/span_builder.h"
#include "support/test_support.h"

using namespace engine;
using engine::trace::Span;
using engine::trace::SpanKind;

namespace {

struct Spans {
  std::vector<Span> ended;
  trace::SpanBuilder builder{[this](Span&& s) { ended.push_back(std::move(s)); }};
  void at(const std::string& path, EventType type, Value data) {
    builder.receive(test::event(type, data), EventPlace{"run-1", path});
  }
  const Span& named(const std::string& name) const {
    for (const auto& s : ended)
      if (s.name == name) return s;
    FAIL("no span named " << name);
    return ended.front();
  }
};

}  // namespace

TEST_CASE("span builder: a workflow's steps, agent, calls and a workflow used as a tool nest as they ran",
          "[trace][spans]") {
  Spans s;
  s.at("", EventType::ChainStart, {{"name", "triage"}, {"chain", "Workflow"}});
  s.at("research", EventType::StepStart, {{"step", "research"}, {"kind", "agent"}});
  s.at("research", EventType::ChainStart, {{"name", "research"}, {"chain", "AgentExecutor"}});
  s.at("research", EventType::LlmStart, {{"call", 0}, {"llm", "openai:gpt-4o"}, {"stream", true}});
  s.at("research", EventType::LlmEnd, {{"call", 0}, {"finish_reason", "stop"},
                                       {"usage", {{"prompt_tokens", 12}, {"completion_tokens", 5}}}});
  s.at("research", EventType::ToolStart, {{"tool", "helper"}, {"call_id", "call_1"}});
  s.at("research/helper", EventType::ChainStart, {{"name", "helper"}, {"chain", "AgentExecutor"}});
  s.at("research/helper", EventType::LlmStart, {{"call", 0}, {"llm", "scripted"}});
  s.at("research/helper", EventType::LlmEnd, {{"call", 0}, {"error", {{"kind", "llm.http_error"}, {"message", "500"}}}});
  s.at("research/helper", EventType::ChainEnd, {{"stopped_reason", "error"}, {"error", {{"kind", "llm.http_error"}, {"message", "500"}}}});
  s.at("research", EventType::ToolEnd, {{"tool", "helper"}, {"call_id", "call_1"}, {"error", "llm.http_error"}});
  s.at("research", EventType::ChainEnd, {{"stopped_reason", "finish"}});
  s.at("research", EventType::StepEnd, {{"step", "research"}, {"status", "done"}});
  s.at("many", EventType::StepStart, {{"step", "many"}, {"kind", "tool"}});
  for (std::string item : {"many[0]", "many[1]"}) s.at(item, EventType::ToolStart, {{"tool", "echo"}, {"call_id", "call_1"}});
  for (std::string item : {"many[1]", "many[0]"}) s.at(item, EventType::ToolEnd, {{"tool", "echo"}, {"call_id", "call_1"}});
  s.at("many", EventType::StepEnd, {{"step", "many"}, {"status", "done"}});
  s.at("", EventType::ChainEnd, {{"stopped_reason", "finish"}});

  REQUIRE(s.ended.size() == 11);
  const Span& run = s.named("invoke_workflow triage");
  CHECK(run.parent_id.empty());
  CHECK(run.trace_id.size() == 32);
  CHECK(run.span_id.size() == 16);
  for (const auto& span : s.ended) CHECK(span.trace_id == run.trace_id);
  const Span& step = s.named("research");
  CHECK(step.parent_id == run.span_id);
  const Span& agent = s.named("invoke_agent research");
  CHECK(agent.parent_id == step.span_id);  // an agent step's chain is the agent alone, under its step
  const Span& chat = s.named("chat gpt-4o");
  CHECK(chat.kind == SpanKind::Client);
  CHECK(chat.parent_id == agent.span_id);
  CHECK(chat.attributes["gen_ai.provider.name"] == "openai");
  CHECK(chat.attributes["gen_ai.request.model"] == "gpt-4o");
  CHECK(chat.attributes["gen_ai.usage.input_tokens"] == 12);
  CHECK(chat.attributes["gen_ai.usage.output_tokens"] == 5);
  CHECK(chat.attributes["gen_ai.response.finish_reasons"] == Value::array({"stop"}));
  const Span& tool = s.named("execute_tool helper");
  CHECK(tool.parent_id == agent.span_id);
  CHECK(tool.attributes["gen_ai.tool.call.id"] == "call_1");
  CHECK(tool.failed);
  // The workflow used as a tool runs under its tool call: its own run and agent spans, its failed model call.
  const Span& sub = s.named("invoke_workflow helper");
  CHECK(sub.parent_id == tool.span_id);
  CHECK(s.named("invoke_agent helper").parent_id == sub.span_id);
  const Span& failed_call = s.named("chat");
  CHECK(failed_call.failed);
  CHECK(failed_call.attributes["error.type"] == "llm.http_error");
  CHECK(sub.failed);
  // The items of a for_each each have a tool span under the step.
  const Span& many = s.named("many");
  int items = 0;
  for (const auto& span : s.ended)
    if (span.name == "execute_tool echo") {
      ++items;
      CHECK(span.parent_id == many.span_id);
    }
  CHECK(items == 2);
  for (const auto& span : s.ended) CHECK(span.end >= span.start);
  CHECK_FALSE(run.failed);
}

TEST_CASE("span builder: the trace a run's chain_start names is its trace, and spans left open end failed",
          "[trace][spans]") {
  std::vector<Span> ended;
  trace::SpanBuilder builder([&](Span&& s) { ended.push_back(std::move(s)); });
  builder.receive(test::event(EventType::ChainStart, {{"name", "a"}, {"chain", "AgentExecutor"},
                                                {"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"},
                                                {"parent_span_id", "00f067aa0ba902b7"}}), {"r", ""});
  builder.receive(test::event(EventType::ToolStart, {{"tool", "x"}, {"call_id", "call_1"}}), {"r", ""});
  builder.receive(test::event(EventType::ToolEnd, {{"tool", "y"}, {"call_id", "call_2"}, {"error", "tool.unknown"}}), {"r", ""});
  REQUIRE(ended.size() == 1);  // a refused call: a span of no length, failed
  CHECK(ended[0].name == "execute_tool y");
  CHECK(ended[0].failed);
  builder.close_all(std::chrono::steady_clock::now());
  REQUIRE(ended.size() == 4);
  for (const auto& span : ended) CHECK(span.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  const Span& root = ended.back();
  CHECK(root.name == "invoke_workflow a");
  CHECK(root.parent_id == "00f067aa0ba902b7");
  CHECK(root.failed);
}

TEST_CASE("span builder: a model call's span has the id its request sent, its parameters, and the answering model",
          "[trace][spans]") {
  Spans s;
  s.at("", EventType::ChainStart, {{"name", "a"}, {"chain", "AgentExecutor"}});
  s.at("", EventType::LlmStart, {{"call", 0}, {"llm", "openai:gpt-4o"}, {"span_id", "00f067aa0ba902b7"},
                                 {"temperature", 0.5}, {"max_tokens", 64}, {"stop", {"\nObservation:"}},
                                 {"prompt", "the secret prompt"}});
  s.at("", EventType::LlmEnd, {{"call", 0}, {"text", "the reply"}, {"finish_reason", "stop"},
                               {"model", "gpt-4o-2024-08-06"}, {"id", "chatcmpl-1"}});
  s.at("", EventType::ToolStart, {{"tool", "echo"}, {"call_id", "call_1"}, {"input", "hi"}});
  s.at("", EventType::ToolEnd, {{"tool", "echo"}, {"call_id", "call_1"}, {"observation", "hi"}});
  s.at("", EventType::ChainEnd, {{"stopped_reason", "finish"}});
  const Span& chat = s.named("chat gpt-4o");
  CHECK(chat.span_id == "00f067aa0ba902b7");
  CHECK(chat.attributes["gen_ai.request.temperature"] == 0.5);
  CHECK(chat.attributes["gen_ai.request.max_tokens"] == 64);
  CHECK(chat.attributes["gen_ai.request.stop_sequences"] == Value::array({"\nObservation:"}));
  CHECK(chat.attributes["gen_ai.response.model"] == "gpt-4o-2024-08-06");
  CHECK(chat.attributes["gen_ai.response.id"] == "chatcmpl-1");
  // Content is opt-in: without it, no prompt, reply, arguments or result.
  CHECK_FALSE(s.builder.detail() == EventDetail::Full);
  for (const auto& span : s.ended)
    for (const char* key : {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
                            "gen_ai.tool.call.result"})
      CHECK_FALSE(span.attributes.contains(key));
}

TEST_CASE("span builder: content when opted in, as the conventions' messages, cut to its limit", "[trace][spans]") {
  std::vector<Span> ended;
  trace::SpanBuilder builder([&](Span&& s) { ended.push_back(std::move(s)); }, trace::SpanContent{true, 400});
  CHECK(builder.detail() == EventDetail::Full);
  auto at = [&](EventType type, const Value& data) { builder.receive(test::event(type, data), EventPlace{"r", ""}); };
  at(EventType::ChainStart, {{"name", "a"}, {"chain", "AgentExecutor"}});
  Value messages = Value::array({
      {{"role", "system"}, {"content", "Be brief."}},
      {{"role", "user"}, {"content", "2+2?"}},
      {{"role", "assistant"}, {"content", ""}, {"tool_calls", {{{"id", "c1"}, {"name", "calc"}, {"arguments", "{\"e\":\"2+2\"}"}}}}},
      {{"role", "tool"}, {"content", "4"}, {"tool_call_id", "c1"}},
  });
  at(EventType::LlmStart, {{"call", 0}, {"llm", "openai:m"}, {"messages", messages}});
  at(EventType::LlmEnd, {{"call", 0}, {"text", "4"}, {"finish_reason", "stop"}});
  at(EventType::LlmStart, {{"call", 1}, {"llm", "openai:m"}, {"prompt", "xx" + [] { std::string e; for (int i = 0; i < 300; ++i) e += "\xc3\xa9"; return e; }()}});
  at(EventType::LlmEnd, {{"call", 1}, {"text", "ok"}, {"finish_reason", "stop"}});
  at(EventType::ToolStart, {{"tool", "calc"}, {"call_id", "call_1"}, {"input", {{"e", "2+2"}}}});
  at(EventType::ToolEnd, {{"tool", "calc"}, {"call_id", "call_1"}, {"observation", 4}});
  at(EventType::ChainEnd, {{"stopped_reason", "finish"}});
  REQUIRE(ended.size() == 5);
  Value input = Value::parse(ended[0].attributes["gen_ai.input.messages"].get<std::string>());
  REQUIRE(input.size() == 4);
  CHECK(input[0] == Value{{"role", "system"}, {"parts", {{{"type", "text"}, {"content", "Be brief."}}}}});
  CHECK(input[2]["parts"][0] == Value{{"type", "tool_call"}, {"id", "c1"}, {"name", "calc"}, {"arguments", "{\"e\":\"2+2\"}"}});
  CHECK(input[3]["parts"][0] == Value{{"type", "tool_call_response"}, {"id", "c1"}, {"response", "4"}});
  Value output = Value::parse(ended[0].attributes["gen_ai.output.messages"].get<std::string>());
  CHECK(output == Value::array({{{"role", "assistant"}, {"parts", {{{"type", "text"}, {"content", "4"}}}}, {"finish_reason", "stop"}}}));
  // A text prompt is one user message; past the limit it is cut, never inside a UTF-8 sequence.
  std::string cut = ended[1].attributes["gen_ai.input.messages"].get<std::string>();
  CHECK(cut.size() <= 400);
  CHECK(cut.size() >= 398);
  CHECK(cut.rfind(R"([{"role":"user","parts":[{"type":"text","content":"xx)", 0) == 0);
  CHECK(utf8::find_invalid(cut) == std::string::npos);
  const Span& tool = ended[2];
  CHECK(tool.attributes["gen_ai.tool.call.arguments"] == R"({"e":"2+2"})");
  CHECK(tool.attributes["gen_ai.tool.call.result"] == "4");
}

TEST_CASE("span builder: a run its caller did not sample makes no spans", "[trace][spans]") {
  Spans s;
  s.at("", EventType::ChainStart, {{"name", "a"}, {"chain", "AgentExecutor"}, {"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"},
                                   {"sampled", false}});
  s.at("", EventType::LlmStart, {{"call", 0}, {"llm", "scripted"}});
  s.at("", EventType::LlmEnd, {{"call", 0}, {"text", "x"}});
  s.at("", EventType::ChainEnd, {{"stopped_reason", "finish"}});
  CHECK(s.ended.empty());
  s.at("", EventType::ChainStart, {{"name", "a"}, {"chain", "AgentExecutor"}});  // the next run is recorded again
  s.at("", EventType::ChainEnd, {{"stopped_reason", "finish"}});
  CHECK(s.ended.size() == 2);
}
