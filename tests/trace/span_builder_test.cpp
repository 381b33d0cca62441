// The spans of a run, built from its events: names and kinds as the GenAI conventions have them, each parent the
// span that holds it (a step's agent, an agent's calls, a workflow used as a tool under its tool call, for_each
// items under their step), one trace, and failures marked.
#include <catch2/catch.hpp>

#include <map>

#include "engine/trace/span_builder.h"

using namespace engine;
using engine::trace::Span;
using engine::trace::SpanKind;

namespace {

struct Spans {
  std::vector<Span> ended;
  trace::SpanBuilder builder{[this](Span&& s) { ended.push_back(std::move(s)); }};
  void at(const std::string& path, EventType type, Value data) {
    builder.receive(Event{type, std::move(data)}, EventPlace{"run-1", path});
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

TEST_CASE("span builder: a caller's traceparent is the root's parent, and spans left open end failed",
          "[trace][spans]") {
  std::vector<Span> ended;
  trace::SpanBuilder builder([&](Span&& s) { ended.push_back(std::move(s)); },
                             trace::TraceParent{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"});
  builder.receive(Event{EventType::ChainStart, {{"name", "a"}, {"chain", "AgentExecutor"}}}, {"r", ""});
  builder.receive(Event{EventType::ToolStart, {{"tool", "x"}, {"call_id", "call_1"}}}, {"r", ""});
  builder.receive(Event{EventType::ToolEnd, {{"tool", "y"}, {"call_id", "call_2"}, {"error", "tool.unknown"}}}, {"r", ""});
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
