// The loop's behaviour, LangChain's AgentExecutor being the reference.
#include <catch2/catch.hpp>

#include "engine/agent/react_agent.h"
#include "engine/schema/schema.h"
#include "engine/llm/scripted_llm.h"
#include "engine/parse/react_parser.h"
#include "engine/spec/default_react.h"
#include "engine/tools/builtin_tools.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::agent;

namespace {

struct ReactSetup {
  ReactAgentConfig cfg{.prompt = Prompt::text(tmpl::Template::compile("Question: {{ input }}\nThought:{{ agent_scratchpad }}", "p")),
                       .scratchpad = tmpl::Template::compile(spec::default_scratchpad("Observation: ", "Thought: "), "s")};
  llm::ScriptedScript script;
  bool return_direct = false;
  bool fail_on_error = false;

  ReactSetup() {
    cfg.stop = {"\nObservation:"};
    cfg.tools.push_back(AgentTool{tools::make_builtin_tool("echo", "", ""), false, false});
  }
  RunResult run(test::EventLog& log, const RunOptions& options = {}) {
    cfg.tools[0].return_direct = return_direct;
    cfg.tools[0].fail_run_on_error = fail_on_error;
    ReactAgent agent(cfg, std::make_shared<parse::ReactParser>(parse::ReactPatterns{spec::kDefaultFinalAnswerRegex, spec::kDefaultActionRegex}),
                     std::make_shared<llm::ScriptedLlm>(script));
    return agent.run(Value{{"input", "hi"}}, log, options);
  }
};

// A tool that answers with JSON: a weather lookup.
class WeatherTool : public tools::Tool, public tools::ToolInstance {
 public:
  WeatherTool() : Tool("weather", "Weather by city") {}
  std::string kind() const override { return "test"; }
  std::unique_ptr<tools::ToolInstance> instantiate(const tools::ToolContext&) const override { return std::make_unique<WeatherTool>(); }
  tools::ToolResult invoke(const Value& input) override {
    return tools::ToolResult::success(Value{{"city", input}, {"celsius", 21}, {"alerts", Value::array()}});
  }
};

}  // namespace

TEST_CASE("a structured observation is JSON text to the model and stays a value in the step and events",
          "[agent]") {
  ReactSetup s;
  s.cfg.tools.push_back(AgentTool{std::make_shared<WeatherTool>(), false, false});
  s.script.replies = {" look\nAction: weather\nAction Input: Oslo", " done\nFinal Answer: 21"};
  test::EventLog log;
  RunResult r = s.run(log);
  REQUIRE(r.intermediate_steps.size() == 1);
  Value expected{{"city", "Oslo"}, {"celsius", 21}, {"alerts", Value::array()}};
  CHECK(r.intermediate_steps[0].action.tool_input == "Oslo");
  CHECK(r.intermediate_steps[0].observation == expected);
  CHECK(r.to_json()["intermediate_steps"][0]["observation"] == expected);
  CHECK(log.events[5].type == "tool_end");
  CHECK(log.events[5].data["observation"] == expected);
  CHECK(log.events[6].data["prompt"].get<std::string>().find(
            "Observation: {\"city\":\"Oslo\",\"celsius\":21,\"alerts\":[]}\nThought: ") != std::string::npos);
}

TEST_CASE("an action, its observation, then a final answer", "[agent]") {
  ReactSetup s;
  s.script.replies = {" use echo\nAction: echo\nAction Input: ping\nObservation: made up", " done\nFinal Answer: pong"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.ok());
  CHECK(r.output == "pong");
  CHECK(r.stopped_reason == StoppedReason::Finish);
  REQUIRE(r.intermediate_steps.size() == 1);
  CHECK(r.intermediate_steps[0].action.tool == "echo");
  CHECK(r.intermediate_steps[0].observation == "ping");
  CHECK(r.llm_calls == 2);
  CHECK(log.types() == std::vector<std::string>{"chain_start", "llm_start", "llm_end", "agent_action", "tool_start",
                                                "tool_end", "llm_start", "llm_end", "agent_finish", "chain_end"});
  // The second prompt carries the scratchpad exactly as LangChain's format_log_to_str builds it.
  CHECK(log.events[6].data["prompt"] ==
        "Question: hi\nThought: use echo\nAction: echo\nAction Input: ping\nObservation: ping\nThought: ");
}

TEST_CASE("the iteration limit stops the run with LangChain's message (force)", "[agent]") {
  ReactSetup s;
  s.cfg.limits.max_iterations = 3;
  s.script.replies = std::vector<llm::ScriptedReply>(5, "Action: echo\nAction Input: again");
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.ok());
  CHECK(r.output == "Agent stopped due to iteration limit or time limit.");
  CHECK(r.stopped_reason == StoppedReason::MaxIterations);
  CHECK(r.intermediate_steps.size() == 3);
}

TEST_CASE("early stopping 'generate' makes one last call for the answer", "[agent]") {
  ReactSetup s;
  s.cfg.limits.max_iterations = 1;
  s.cfg.limits.early_stopping = EarlyStopping::Generate;
  s.script.replies = {"Action: echo\nAction Input: x", "Final Answer: best guess"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "best guess");
  CHECK(r.stopped_reason == StoppedReason::MaxIterations);
  CHECK(r.llm_calls == 2);
  CHECK(log.events[7].data["prompt"].get<std::string>().find(
            "\n\nI now need to return a final answer based on the previous steps:") != std::string::npos);
}

TEST_CASE("the time limit stops the run", "[agent]") {
  ReactSetup s;
  s.cfg.limits.max_execution_time = std::chrono::milliseconds(50);
  s.script.latency = std::chrono::milliseconds(30);
  s.script.replies = std::vector<llm::ScriptedReply>(10, "Action: echo\nAction Input: slow");
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.stopped_reason == StoppedReason::MaxExecutionTime);
  CHECK(r.output == "Agent stopped due to iteration limit or time limit.");
  CHECK(r.intermediate_steps.size() < 10);
}

TEST_CASE("a parse error fails the run by default", "[agent]") {
  ReactSetup s;
  s.script.replies = {"I am confused"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK_FALSE(r.ok());
  CHECK(r.stopped_reason == StoppedReason::Error);
  CHECK(r.error->kind == ErrorKind::ParseFailed);
}

TEST_CASE("on_parse_error retry sends the error back as the observation", "[agent]") {
  ReactSetup s;
  s.cfg.on_parse_error = ParseErrorPolicy::Retry;
  s.script.replies = {"I am confused", "Final Answer: recovered"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "recovered");
  REQUIRE(r.intermediate_steps.size() == 1);
  CHECK(r.intermediate_steps[0].action.tool == "_Exception");
  CHECK(r.intermediate_steps[0].observation.get<std::string>() ==
        "could not parse LLM output: it matches neither the final-answer nor the action pattern: 'I am confused'");
}

TEST_CASE("retrying parse errors is still bounded by max_iterations", "[agent]") {
  ReactSetup s;
  s.cfg.on_parse_error = ParseErrorPolicy::Retry;
  s.cfg.limits.max_iterations = 4;
  s.script.replies = std::vector<llm::ScriptedReply>(10, "nonsense");
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.stopped_reason == StoppedReason::MaxIterations);
  CHECK(r.llm_calls == 4);
}

TEST_CASE("an unknown tool becomes an observation naming the valid ones", "[agent]") {
  ReactSetup s;
  s.script.replies = {"Action: serch\nAction Input: x", "Final Answer: ok"};
  test::EventLog log;
  RunResult r = s.run(log);
  REQUIRE(r.intermediate_steps.size() == 1);
  CHECK(r.intermediate_steps[0].observation == "serch is not a valid tool, try one of [echo].");
  CHECK(r.output == "ok");
}

TEST_CASE("a return_direct tool's observation is the answer", "[agent]") {
  ReactSetup s;
  s.return_direct = true;
  s.script.replies = {"Action: echo\nAction Input: direct answer"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "direct answer");
  CHECK(r.stopped_reason == StoppedReason::ReturnDirect);
  CHECK(r.llm_calls == 1);
  // As LangChain: the tool's observation without a "Thought:" after it, then agent_finish.
  CHECK(log.types() == std::vector<std::string>{"chain_start", "llm_start", "llm_end", "agent_action", "tool_start",
                                                "tool_end", "agent_finish", "chain_end"});
  CHECK(log.events[5].data["return_direct"] == true);  // the console writes no "Thought:" after it
  CHECK(log.events[6].data == Value{{"output", "direct answer"}, {"log", ""}});
}

TEST_CASE("a forced stop emits agent_finish with LangChain's message", "[agent]") {
  ReactSetup s;
  s.cfg.limits.max_iterations = 1;
  s.script.replies = {"Action: echo\nAction Input: again", "Action: echo\nAction Input: again"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(log.types().back() == "chain_end");
  CHECK(log.events[log.events.size() - 2].type == "agent_finish");
  CHECK(log.events[log.events.size() - 2].data ==
        Value{{"output", "Agent stopped due to iteration limit or time limit."}, {"log", ""}});
}

TEST_CASE("an LLM failure ends the run with its error", "[agent]") {
  ReactSetup s;
  s.script.replies = {"Action: echo\nAction Input: x"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK_FALSE(r.ok());
  CHECK(r.error->kind == ErrorKind::LlmScriptExhausted);
  CHECK(r.intermediate_steps.size() == 1);
}

TEST_CASE("the JSON result has LangChain's fields", "[agent]") {
  ReactSetup s;
  s.script.replies = {"Final Answer: 1"};
  test::EventLog log;
  Value j = s.run(log).to_json();
  CHECK(j["output"] == "1");
  CHECK(j["stopped_reason"] == "finish");
  CHECK(j["intermediate_steps"].is_array());
  CHECK(j["usage"]["total_tokens"].get<long>() > 0);
  CHECK(j.contains("elapsed_ms"));
}

TEST_CASE("a 1 MB model output goes through the loop: as an answer, and as junk to retry", "[agent]") {
  ReactSetup s;
  std::string big(1 << 20, 'x');
  s.script.replies = {"Final Answer: " + big};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output.get<std::string>().size() == big.size());

  ReactSetup junk;
  junk.cfg.on_parse_error = ParseErrorPolicy::Retry;
  junk.script.replies = {big, "Final Answer: fine"};
  test::EventLog log2;
  RunResult r2 = junk.run(log2);
  CHECK(r2.output == "fine");
  REQUIRE(r2.intermediate_steps.size() == 1);
  CHECK(r2.intermediate_steps[0].observation.size() < 400);  // the feedback quotes an excerpt
}

TEST_CASE("a chat prompt without a chat template sends messages", "[agent]") {
  ReactSetup s;
  std::vector<PromptMessage> messages;
  messages.push_back({"system", tmpl::Template::compile("Tools: {{ tool_names }}", "m0")});
  messages.push_back({"user", tmpl::Template::compile("{{ input }}{{ agent_scratchpad }}", "m1")});
  s.cfg.prompt = Prompt::chat(std::move(messages), std::nullopt, Value::object());
  s.script.replies = {"Final Answer: ok"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "ok");
  CHECK(log.events[1].data["messages"] ==
        Value::parse(R"([{"role": "system", "content": "Tools: echo"}, {"role": "user", "content": "hi"}])"));
}

TEST_CASE("a chat template turns the messages into one text prompt", "[agent]") {
  ReactSetup s;
  std::vector<PromptMessage> messages;
  messages.push_back({"user", tmpl::Template::compile("{{ input }}", "m0")});
  s.cfg.prompt = Prompt::chat(
      std::move(messages),
      tmpl::Template::compile_chat("{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"
                                   "{% if add_generation_prompt %}<assistant>{% endif %}",
                                   "chat"),
      Value{{"bos_token", "<s>"}});
  s.script.replies = {"Final Answer: ok"};
  test::EventLog log;
  s.run(log);
  CHECK(log.events[1].data["prompt"] == "<s><user>hi<assistant>");
}

TEST_CASE("a token budget stops the run cleanly before the call that would exceed it", "[agent][budget]") {
  ReactSetup s;
  s.cfg.limits.max_tokens_total = 30;  // the first call's prompt and answer take about 20 tokens, the second about 40
  s.script.replies = std::vector<llm::ScriptedReply>(5, "Action: echo\nAction Input: a fairly long input to spend tokens");
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.ok());
  CHECK(r.stopped_reason == StoppedReason::MaxTokensTotal);
  CHECK(r.output == "Agent stopped due to budget limit.");
  CHECK(r.llm_calls == 2);
  CHECK(r.usage.total() >= 30);
}

TEST_CASE("a cost budget needs prices and every call's cost is reported", "[agent][budget]") {
  ReactSetup s;
  s.cfg.limits.price = llm::Price{1'000'000, 2'000'000};  // $1 a prompt token, $2 a completion token
  s.cfg.limits.max_cost = 10;
  s.cfg.limits.early_stopping = EarlyStopping::Generate;  // a spent budget makes no further call, even to generate
  s.script.replies = std::vector<llm::ScriptedReply>(5, "Action: echo\nAction Input: x");
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.stopped_reason == StoppedReason::MaxCost);
  CHECK(r.llm_calls == 1);
  REQUIRE(r.cost_usd);
  CHECK(*r.cost_usd == Approx(r.usage.prompt_tokens * 1.0 + r.usage.completion_tokens * 2.0));
  CHECK(r.to_json()["usage"]["cost_usd"] == *r.cost_usd);
  for (const auto& e : log.events)
    if (e.type == "llm_end") CHECK(e.data["usage"]["cost_usd"] == *r.cost_usd);
}

TEST_CASE("streaming: the text arrives as tokens that add up to each answer", "[agent][stream]") {
  ReactSetup s;
  s.script.replies = {" use echo\nAction: echo\nAction Input: ping\nObservation: made up", " done\nFinal Answer: pong"};
  test::EventLog log;
  RunResult r = s.run(log, RunOptions{.stream = true});
  CHECK(r.output == "pong");
  std::string shown, answered;
  for (const auto& e : log.events) {
    if (e.type == "llm_start") CHECK(e.data["stream"] == true);
    if (e.type == "llm_token") shown += e.data["text"].get<std::string>();
    if (e.type == "llm_end") answered += e.data["text"].get<std::string>();
  }
  CHECK(shown == answered);
  CHECK(shown == " use echo\nAction: echo\nAction Input: ping done\nFinal Answer: pong");
}

namespace {

// A model whose call throws what the engine itself never does: out of memory, or a stray standard exception.
class ThrowingLlm : public llm::LlmClient {
 public:
  explicit ThrowingLlm(bool out_of_memory) : oom_(out_of_memory) {}
  llm::LlmResponse complete(const llm::LlmRequest&) const override {
    if (oom_) throw std::bad_alloc();
    throw std::out_of_range("vector::at");
  }
  std::string describe() const override { return "throwing"; }

 private:
  bool oom_;
};

}  // namespace

TEST_CASE("out of memory, or an unexpected exception, fails the run with a documented kind", "[agent]") {
  ReactSetup s;
  for (bool oom : {true, false}) {
    ReactAgent agent(s.cfg, std::make_shared<parse::ReactParser>(parse::ReactPatterns{spec::kDefaultFinalAnswerRegex, spec::kDefaultActionRegex}),
                     std::make_shared<ThrowingLlm>(oom));
    test::EventLog log;
    RunResult r = agent.run(Value{{"input", "hi"}}, log, {});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->kind == (oom ? ErrorKind::EngineOutOfMemory : ErrorKind::EngineInternal));
    CHECK(r.error->message == (oom ? "the run ran out of memory" : "internal error: vector::at"));
    CHECK(log.types().back() == "chain_end");
  }
}

TEST_CASE("a ReAct action input for a tool with parameters is read as JSON and validated", "[agent][parameters]") {
  ReactSetup s;
  Value params = Value::parse(R"({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})");
  s.cfg.tools.push_back(AgentTool{tools::make_builtin_tool("echo", "lookup", "", params), false, false});
  s.script.replies = {"Action: lookup\nAction Input: Oslo", "Action: lookup\nAction Input: {\"town\": \"Oslo\"}",
                      "Action: lookup\nAction Input: {\"city\": \"Oslo\"}", "Final Answer: ok"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "ok");
  REQUIRE(r.intermediate_steps.size() == 3);
  CHECK(r.intermediate_steps[0].observation.get<std::string>().rfind(
            "tool 'lookup' was not run: its input must be a JSON object of its arguments (", 0) == 0);
  CHECK(r.intermediate_steps[1].observation ==
        "tool 'lookup' was not run: its arguments do not match its parameters: at /city: is required");
  CHECK(r.intermediate_steps[2].action.tool_input == Value{{"city", "Oslo"}});
  CHECK(r.intermediate_steps[2].observation == Value{{"city", "Oslo"}});
}

TEST_CASE("a ReAct final answer under an output schema is JSON, fenced or bare, fed back until it matches",
          "[agent][structured]") {
  ReactSetup s;
  s.cfg.output = agent::OutputSchema{schema::Schema::compile(
      Value::parse(R"({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})"))};
  s.script.replies = {"Final Answer: Oslo", "Final Answer: {\"town\": \"Oslo\"}",
                      "Final Answer: ```json\n{\"city\": \"Oslo\"}\n```"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.ok());
  CHECK(r.output == Value{{"city", "Oslo"}});
  REQUIRE(r.intermediate_steps.size() == 2);
  CHECK(r.intermediate_steps[0].observation.get<std::string>().rfind(
            "the answer must be JSON that matches the output schema (", 0) == 0);
  CHECK(r.intermediate_steps[1].observation == "the answer does not match the output schema: at /city: is required");
  CHECK(r.intermediate_steps[1].action.tool == "_Exception");
}

TEST_CASE("the built-in scratchpad, appended a step at a time, is LangChain's format_log_to_str rendered whole",
          "[agent]") {
  auto prompts = [](bool template_scratchpad) {
    ReactSetup s;
    if (!template_scratchpad) s.cfg.scratchpad.reset();
    s.cfg.limits.max_iterations = 3;
    s.cfg.limits.early_stopping = EarlyStopping::Generate;
    s.script.replies = {" one\nAction: echo\nAction Input: a", " two\nAction: nope\nAction Input: b",
                        "three\nAction: echo\nAction Input: {\"x\": [1]}", " last\nFinal Answer: done"};
    test::EventLog log;
    RunResult r = s.run(log);
    CHECK(r.output == "done");
    std::vector<std::string> out;
    for (const auto& e : log.events)
      if (e.type == "llm_start") out.push_back(e.data["prompt"]);
    return out;
  };
  auto whole = prompts(true);
  REQUIRE(whole.size() == 4);
  CHECK(whole[3].find("I now need to return a final answer based on the previous steps:") != std::string::npos);
  CHECK(prompts(false) == whole);
}

TEST_CASE("a sink that reads a summary gets no prompt and no inputs, one that reads everything gets both",
          "[agent]") {
  auto starts = [](EventDetail level) {
    ReactSetup s;
    s.script.replies = {" done\nFinal Answer: ok"};
    test::EventLog log;
    log.level = level;
    CHECK(s.run(log).output == "ok");
    Value out = Value::object();
    for (const auto& e : log.events)
      if (e.type == "chain_start" || e.type == "llm_start") out[e.type] = e.data;
    return out;
  };
  Value full = starts(EventDetail::Full);
  CHECK(full["chain_start"]["inputs"] == Value{{"input", "hi"}});
  CHECK(full["llm_start"]["prompt"] == "Question: hi\nThought:");
  Value summary = starts(EventDetail::Summary);
  CHECK_FALSE(summary["chain_start"].contains("inputs"));
  CHECK(summary["chain_start"]["observation_prefix"] == "Observation: ");
  CHECK_FALSE(summary["llm_start"].contains("prompt"));
  CHECK(summary["llm_start"]["call"] == 0);
}
