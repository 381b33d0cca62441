// The tool-calling loop, LangChain's create_tool_calling_agent + AgentExecutor being the reference: calls run and
// answered by id, parallel calls, unknown tools, limits.
#include <catch2/catch.hpp>

#include <mutex>

#include "engine/agent/tool_calling_agent.h"
#include "engine/schema/schema.h"
#include "engine/llm/scripted_llm.h"
#include "engine/tools/builtin_tools.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::agent;

namespace {

// The scripted model, keeping every request it was sent.
class RecordingScript : public llm::LlmClient {
 public:
  explicit RecordingScript(llm::ScriptedScript script) : inner_(std::move(script)) {}
  llm::LlmResponse complete(const llm::LlmRequest& request) const override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests.push_back(request);
    }
    return inner_.complete(request);
  }
  std::string describe() const override { return "scripted"; }
  mutable std::vector<llm::LlmRequest> requests;

 private:
  llm::ScriptedLlm inner_;
  mutable std::mutex mu_;
};

llm::ToolCall call(const std::string& name, const std::string& arguments) { return {"", name, arguments}; }

struct ToolCallingSetup {
  ToolCallingAgentConfig cfg{.prompt = Prompt::chat({{"system", tmpl::Template::compile("Be brief.", "s")},
                                                     {"user", tmpl::Template::compile("{{ input }}", "u")}},
                                                    std::nullopt, Value::object())};
  llm::ScriptedScript script;
  std::shared_ptr<RecordingScript> llm;

  ToolCallingSetup() {
    cfg.tools.push_back(AgentTool{tools::make_builtin_tool("echo", "", ""), false, false});
    cfg.limits.observation_prefix = "";
    cfg.limits.llm_prefix = "";
  }
  RunResult run(test::EventLog& log) {
    llm = std::make_shared<RecordingScript>(script);
    ToolCallingAgent agent(cfg, llm);
    return agent.run(Value{{"input", "hi"}}, log);
  }
};

}  // namespace

TEST_CASE("tool calling: a call, its result by id, then the answer in text", "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.script.replies = {llm::ScriptedReply("Let me echo.", {call("echo", R"({"input": "ping"})")}), "pong"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.ok());
  CHECK(r.output == "pong");
  CHECK(r.stopped_reason == StoppedReason::Finish);
  REQUIRE(r.intermediate_steps.size() == 1);
  CHECK(r.intermediate_steps[0].action.tool == "echo");
  CHECK(r.intermediate_steps[0].action.tool_input == "ping");
  CHECK(r.intermediate_steps[0].action.log == "Let me echo.\nInvoking: `echo` with `{\"input\": \"ping\"}`");
  CHECK(r.intermediate_steps[0].observation == "ping");
  CHECK(log.types() == std::vector<std::string>{"chain_start", "llm_start", "llm_end", "agent_action", "tool_start",
                                                "tool_end", "llm_start", "llm_end", "agent_finish", "chain_end"});
  REQUIRE(s.llm->requests.size() == 2);
  const auto& first = s.llm->requests[0];
  REQUIRE(first.tools.size() == 1);
  CHECK(first.tools[0].name == "echo");
  CHECK(first.tools[0].parameters["required"] == Value::array({"input"}));
  CHECK(first.stop.empty());
  const auto& second = s.llm->requests[1].messages;
  REQUIRE(second.size() == 4);
  CHECK(second[2].role == "assistant");
  CHECK(second[2].content == "Let me echo.");
  REQUIRE(second[2].tool_calls.size() == 1);
  CHECK(second[2].tool_calls[0].id == "call_1_1");
  CHECK(second[3].role == "tool");
  CHECK(second[3].tool_call_id == "call_1_1");
  CHECK(second[3].content == "ping");
}

TEST_CASE("tool calling: calls made together are all run, each answered by its own id", "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.script.replies = {llm::ScriptedReply("", {call("echo", R"({"input": "a"})"), call("echo", R"({"input": "b"})")}),
                      "done"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "done");
  REQUIRE(r.intermediate_steps.size() == 2);
  CHECK(r.intermediate_steps[1].observation == "b");
  CHECK(r.intermediate_steps[1].action.log == "Invoking: `echo` with `{\"input\": \"b\"}`");
  const auto& messages = s.llm->requests[1].messages;
  REQUIRE(messages.size() == 5);
  CHECK(messages[3].tool_call_id == "call_1_1");
  CHECK(messages[3].content == "a");
  CHECK(messages[4].tool_call_id == "call_1_2");
  CHECK(messages[4].content == "b");
}

TEST_CASE("tool calling: an unknown tool name is answered with the valid names, and the run goes on",
          "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.script.replies = {llm::ScriptedReply("", {call("search", R"({"input": "x"})")}),
                      llm::ScriptedReply("", {call("echo", "not json")}), "ok"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "ok");
  REQUIRE(r.intermediate_steps.size() == 2);
  CHECK(r.intermediate_steps[0].observation == "search is not a valid tool, try one of [echo].");
  CHECK(s.llm->requests[1].messages.back().content == "search is not a valid tool, try one of [echo].");
  CHECK(r.intermediate_steps[1].action.tool_input == "not json");  // arguments that are not {"input"} go as written
  CHECK(r.intermediate_steps[1].observation == "not json");
}

TEST_CASE("tool calling: at the iteration limit, generate makes one last call without tools", "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.cfg.limits.max_iterations = 2;
  s.cfg.limits.early_stopping = EarlyStopping::Generate;
  s.script.replies = {llm::ScriptedReply("", {call("echo", R"({"input": "1"})")}),
                      llm::ScriptedReply("", {call("echo", R"({"input": "2"})")}), "gave up: 2"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.stopped_reason == StoppedReason::MaxIterations);
  CHECK(r.output == "gave up: 2");
  REQUIRE(s.llm->requests.size() == 3);
  CHECK(s.llm->requests[2].tool_choice == "none");
  CHECK(s.llm->requests[1].tool_choice.empty());
}

TEST_CASE("tool calling: a return_direct tool's result is the answer", "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.cfg.tools[0].return_direct = true;
  s.script.replies = {llm::ScriptedReply("", {call("echo", R"({"input": "direct"})")}), "never"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "direct");
  CHECK(r.stopped_reason == StoppedReason::ReturnDirect);
  CHECK(r.llm_calls == 1);
  CHECK(log.types().back() == "chain_end");
  CHECK(log.events[log.events.size() - 2].type == "agent_finish");
  CHECK(log.events[log.events.size() - 2].data == Value{{"output", "direct"}, {"log", ""}});
  CHECK(log.events[log.events.size() - 3].data["return_direct"] == true);  // the tool_end: no "Thought:" follows
}

TEST_CASE("tool calling: a return_direct tool ends the run only as its answer's one call, as LangChain",
          "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.cfg.tools[0].return_direct = true;
  s.script.replies = {llm::ScriptedReply("", {call("echo", R"({"input": "a"})"), call("echo", R"({"input": "b"})")}),
                      "both ran"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "both ran");
  CHECK(r.stopped_reason == StoppedReason::Finish);
  CHECK(r.intermediate_steps.size() == 2);  // the second call ran too
  CHECK(r.llm_calls == 2);
}

TEST_CASE("tool calling: every run that ends emits agent_finish, forced stops and generate included",
          "[agent][tool_calling]") {
  ToolCallingSetup s;
  s.cfg.limits.max_iterations = 1;
  s.script.replies = {llm::ScriptedReply("", {call("echo", R"({"input": "1"})")}), "late"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.stopped_reason == StoppedReason::MaxIterations);
  CHECK(log.events[log.events.size() - 2].type == "agent_finish");
  CHECK(log.events[log.events.size() - 2].data["output"] == "Agent stopped due to iteration limit or time limit.");
  s.cfg.limits.early_stopping = EarlyStopping::Generate;
  test::EventLog generated;
  r = s.run(generated);
  CHECK(r.output == "late");
  CHECK(generated.events[generated.events.size() - 2].data == Value{{"output", "late"}, {"log", "late"}});
}

TEST_CASE("tool calling: a tool's input is the input argument, or else the arguments' text",
          "[agent][tool_calling]") {
  CHECK(tool_input_of(R"({"input": "2 + 2"})") == "2 + 2");
  CHECK(tool_input_of(R"({"input": {"a": 1}})") == R"({"a":1})");
  CHECK(tool_input_of(R"({"a": 1, "b": 2})") == R"({"a": 1, "b": 2})");
  CHECK(tool_input_of("12 * 7") == "12 * 7");
}

namespace {

// add(x: number, y: number), as the function-calling reference agent declares it.
std::shared_ptr<const tools::Tool> add_tool() {
  Value params = Value::parse(R"({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                                  "required": ["x", "y"], "additionalProperties": false})");
  return tools::make_builtin_tool("echo", "add", "Adds x and y.", params);
}

}  // namespace

TEST_CASE("tool calling: a tool's parameters are its function schema and its input is the arguments object",
          "[agent][tool_calling][parameters]") {
  ToolCallingSetup s;
  s.cfg.tools = {AgentTool{add_tool(), false, false}};
  s.cfg.tool_choice = "required";
  s.script.replies = {llm::ScriptedReply("", {call("add", R"({"x": 2, "y": 3.5})")}), "5.5"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "5.5");
  CHECK(s.llm->requests[0].tools[0].parameters == add_tool()->parameters());
  CHECK(s.llm->requests[0].tool_choice == "required");
  CHECK(s.llm->requests[1].tool_choice == "required");
  REQUIRE(r.intermediate_steps.size() == 1);
  CHECK(r.intermediate_steps[0].action.tool_input == Value{{"x", 2}, {"y", 3.5}});
  CHECK(r.intermediate_steps[0].observation == Value{{"x", 2}, {"y", 3.5}});  // echo returns its arguments
  CHECK(s.llm->requests[1].messages.back().content == R"({"x":2,"y":3.5})");
}

TEST_CASE("tool calling: arguments that break the schema go back to the model, which then fixes them",
          "[agent][tool_calling][parameters]") {
  ToolCallingSetup s;
  s.cfg.tools = {AgentTool{add_tool(), false, false}};
  s.script.replies = {llm::ScriptedReply("", {call("add", R"({"x": "two", "z": 1})"), call("add", "{not json")}),
                      llm::ScriptedReply("", {call("add", R"({"x": 2, "y": 3})")}), "5"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == "5");
  REQUIRE(r.intermediate_steps.size() == 3);
  CHECK(r.intermediate_steps[0].observation ==
        "tool 'add' was not run: its arguments do not match its parameters: at /x: has a type the schema does not "
        "allow (a string); at /z: is not allowed here; at /y: is required");
  CHECK(r.intermediate_steps[1].observation.get<std::string>().rfind(
            "tool 'add' was not run: its input must be a JSON object of its arguments (", 0) == 0);
  // Both answers reach the model by their call ids; the tool ran only for the good arguments.
  const auto& messages = s.llm->requests[1].messages;
  CHECK(messages[messages.size() - 2].content == r.intermediate_steps[0].observation.get<std::string>());
  CHECK(messages.back().tool_call_id == "call_1_2");
  CHECK(r.intermediate_steps[2].observation == Value{{"x", 2}, {"y", 3}});
  int failed = 0, ran = 0;
  for (const auto& e : log.events) {
    if (e.type == "tool_end" && e.data.value("error", "") == "tool.invalid_arguments") ++failed;
    if (e.type == "tool_start") ++ran;
  }
  CHECK(failed == 2);
  CHECK(ran == 1);
}

TEST_CASE("tool calling: three calls at once, one failing, each answered by its own id",
          "[agent][tool_calling][parameters]") {
  ToolCallingSetup s;
  s.cfg.tools = {AgentTool{add_tool(), false, false}};
  s.script.replies = {llm::ScriptedReply("", {call("add", R"({"x": 1, "y": 1})"), call("add", R"({"x": 1})"),
                                               call("add", R"({"x": 3, "y": 3})")}),
                      "done"};
  test::EventLog log;
  RunResult r = s.run(log);
  const auto& messages = s.llm->requests[1].messages;
  REQUIRE(messages.size() == 6);
  CHECK(messages[3].tool_call_id == "call_1_1");
  CHECK(messages[3].content == R"({"x":1,"y":1})");
  CHECK(messages[4].tool_call_id == "call_1_2");
  CHECK(messages[4].content == "tool 'add' was not run: its arguments do not match its parameters: at /y: is required");
  CHECK(messages[5].tool_call_id == "call_1_3");
  CHECK(messages[5].content == R"({"x":3,"y":3})");
}

namespace {

agent::OutputSchema answer_schema() {
  return {schema::Schema::compile(Value::parse(R"({"type": "object", "properties": {"answer": {"type": "number"},
      "tools_used": {"type": "array", "items": {"type": "string"}}}, "required": ["answer", "tools_used"]})"))};
}

}  // namespace

TEST_CASE("tool calling: an output schema is a final_answer tool whose matching arguments are the answer",
          "[agent][tool_calling][structured]") {
  ToolCallingSetup s;
  s.cfg.output = answer_schema();
  s.script.replies = {llm::ScriptedReply("", {call("final_answer", R"({"answer": "five"})")}),
                      llm::ScriptedReply("", {call("final_answer", R"({"answer": 5, "tools_used": ["add"]})")})};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.ok());
  CHECK(r.stopped_reason == StoppedReason::Finish);
  CHECK(r.output == Value{{"answer", 5}, {"tools_used", {"add"}}});
  CHECK(r.to_json()["output"] == r.output);
  REQUIRE(s.llm->requests.size() == 2);
  REQUIRE(s.llm->requests[0].tools.size() == 2);
  CHECK(s.llm->requests[0].tools[1].name == "final_answer");
  CHECK(s.llm->requests[0].tools[1].parameters == answer_schema().schema.json());
  CHECK(s.llm->requests[1].messages.back().content ==
        "final_answer was not accepted: the answer does not match the output schema: at /answer: has a type the "
        "schema does not allow (a string); at /tools_used: is required");
  CHECK(log.events[log.events.size() - 2].type == "agent_finish");
}

TEST_CASE("tool calling: a text answer where a structured one is due is sent back, then given through the tool",
          "[agent][tool_calling][structured]") {
  ToolCallingSetup s;
  s.cfg.output = answer_schema();
  s.script.replies = {"It is 5.", llm::ScriptedReply("", {call("final_answer", R"({"answer": 5, "tools_used": []})")})};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK(r.output == Value{{"answer", 5}, {"tools_used", Value::array()}});
  const auto& messages = s.llm->requests[1].messages;
  CHECK(messages[messages.size() - 2].content == "It is 5.");
  CHECK(messages.back().role == "user");
  CHECK(messages.back().content.rfind("Give the final answer by calling final_answer with arguments that match its "
                                      "parameters: the answer must be JSON that matches the output schema (",
                                      0) == 0);
}

TEST_CASE("tool calling: a run with an output schema that reaches its limit fails without an answer",
          "[agent][tool_calling][structured]") {
  ToolCallingSetup s;
  s.cfg.output = answer_schema();
  s.cfg.limits.max_iterations = 2;
  s.script.replies = {"no", "still no", "never asked"};
  test::EventLog log;
  RunResult r = s.run(log);
  CHECK_FALSE(r.ok());
  CHECK(r.error->kind == ErrorKind::OutputMissing);
  CHECK(r.error->message == "the run reached max_iterations before an answer that matches the output schema");
  CHECK(r.stopped_reason == StoppedReason::MaxIterations);
  CHECK(r.llm_calls == 2);
}
