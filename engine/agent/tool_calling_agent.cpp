#include "engine/agent/tool_calling_agent.h"

#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"

namespace engine::agent {

namespace {

// What the console shows of a call, as LangChain's tool-calling agent logs it.
std::string call_log(const std::string& content, const llm::ToolCall& call) {
  return (content.empty() ? "" : content + "\n") + "Invoking: `" + call.name + "` with `" + call.arguments + "`";
}

class ToolCallingRun {
 public:
  ToolCallingRun(const ToolCallingAgent& agent, const llm::LlmClient& llm, const Value& inputs, EventSink& events,
                 const RunOptions& options)
      : agent_(agent),
        cfg_(agent.config()),
        tools_(agent.tools(options.cancel)),
        core_(llm, events, options, cfg_.limits, tools_->tools),
        run_(agent.initial_context(inputs, options.history, *tools_)) {}

  RunResult execute() { return core_.execute(*run_.inputs, [this] { loop(); }); }

 private:
  void loop() {
    llm::LlmRequest req;
    cfg_.prompt.render(run_.vars(), req);
    if (req.messages.empty()) req.messages.push_back({"user", std::move(req.prompt)});
    req.prompt.clear();
    req.tools = agent_.schemas(*tools_);
    req.tool_choice = cfg_.tool_choice;
    req.stop = cfg_.stop;
    int iterations = 0;
    std::optional<StoppedReason> limit;
    while (!(limit = core_.stop_reason(iterations))) {
      ++iterations;
      llm::LlmResponse resp = core_.call_llm(req);
      if (resp.tool_calls.empty()) {
        if (!cfg_.output) return core_.finish(resp.text, resp.text);
        Value answer;
        std::string wrong = read_answer(*cfg_.output, resp.text, answer);
        if (wrong.empty()) return core_.finish(std::move(answer), resp.text);
        // A text answer where a structured one is due: the model is told how to give it, and asked again.
        core_.events().emit({events::ParseError{wrong, resp.text}});
        req.messages.push_back({"assistant", resp.text, {}, ""});
        req.messages.push_back({"user", cfg_.output->as_tool
                                            ? "Give the final answer by calling " + cfg_.output->tool_name +
                                                  " with arguments that match its parameters: " + wrong
                                            : "Answer again with JSON that matches the response format: " + wrong,
                                {}, ""});
        continue;
      }
      req.messages.push_back({"assistant", resp.text, resp.tool_calls, ""});
      // Every call of the answer runs; a return_direct tool ends the run only as the answer's one call (LangChain).
      std::optional<Observation> direct;
      for (size_t i = 0; i < resp.tool_calls.size(); ++i) {
        const llm::ToolCall& call = resp.tool_calls[i];
        parse::AgentAction action{call.name, input_of(call), call_log(i == 0 ? resp.text : "", call), call.id};
        if (cfg_.output && cfg_.output->as_tool && call.name == cfg_.output->tool_name) {
          // The final-answer tool: its arguments, if they match, are the run's answer (calls after it are not run).
          std::string wrong = action.tool_input.is_string()
                                  ? "its arguments are not a JSON object"
                                  : check_answer(*cfg_.output, action.tool_input);
          if (wrong.empty()) return core_.finish(std::move(action.tool_input), action.log);
          core_.emit_action(action);
          Observation refused;
          core_.refuse_call(action, cfg_.output->tool_name + " was not accepted: " + wrong, ErrorKind::OutputInvalid, refused);
          req.messages.push_back({"tool", std::move(refused.text), {}, call.id});
          core_.record_step(std::move(action), std::move(refused.output));
          continue;
        }
        core_.emit_action(action);
        Observation observation;
        RunCore::ToolOutcome outcome = core_.run_tool(action, observation);
        if (outcome == RunCore::ToolOutcome::Failed) {
          core_.record_step(std::move(action), std::move(observation.output));
          return;
        }
        if (outcome == RunCore::ToolOutcome::ReturnDirect && resp.tool_calls.size() == 1) direct = observation;
        // Each result answers its call by id, so calls made together may be answered in any order.
        req.messages.push_back({"tool", std::move(observation.text), {}, call.id});
        core_.record_step(std::move(action), std::move(observation.output));
      }
      if (direct) return core_.return_direct(*direct);
    }
    if (cfg_.output) return core_.fail_without_answer(*limit);
    if (!core_.stop_early(*limit)) return;
    req.tool_choice = "none";  // early_stopping: generate: one last answer, without tools
    std::string text = core_.call_llm(req).text;
    core_.finish_after_stop(text, text);
  }

  // Arguments as the tool takes them: the object for a tool with parameters (text that is not JSON stays text, for
  // the run to report), the `input` string for a tool of one text input.
  Value input_of(const llm::ToolCall& call) const {
    if (cfg_.output && cfg_.output->as_tool && call.name == cfg_.output->tool_name) {
      Value args = parse_json(call.arguments);
      return args.is_discarded() ? Value(call.arguments) : args;
    }
    for (const auto& t : tools_->tools)
      if (t.tool->name() == call.name && !t.tool->parameters().is_null()) {
        Value args = parse_json(call.arguments);
        return args.is_discarded() ? Value(call.arguments) : args;
      }
    return tool_input_of(call.arguments);
  }

  const ToolCallingAgent& agent_;
  const ToolCallingAgentConfig& cfg_;
  std::shared_ptr<const ToolSet> tools_;  // the run's, kept whatever its sources do meanwhile
  RunCore core_;
  RunVars run_;
};

}  // namespace

Value tool_input_of(const std::string& arguments) {
  Value args = parse_json(arguments);
  if (args.is_object() && args.size() == 1 && args.contains("input"))
    return args["input"].is_string() ? args["input"] : Value(to_json_text(args["input"]));
  return arguments;
}

ToolCallingAgent::ToolCallingAgent(ToolCallingAgentConfig config, std::shared_ptr<const llm::LlmClient> llm)
    : config_(std::move(config)),
      llm_(std::move(llm)),
      context_(config_.memory),
      tools_(config_.tools, config_.changing_tools) {}

std::vector<llm::ToolSchema> ToolCallingAgent::schemas(const ToolSet& tools) const {
  std::vector<llm::ToolSchema> all = tools.schemas;
  if (config_.output && config_.output->as_tool)
    all.push_back({config_.output->tool_name,
                   "Gives the final answer. Call it once you have the answer; its arguments are the answer.",
                   config_.output->schema.json()});
  return all;
}

RunVars ToolCallingAgent::initial_context(const Value& inputs, std::span<const Exchange> history,
                                          const ToolSet& tools) const {
  return context_.initial(inputs, history, tools);
}

std::string ToolCallingAgent::render_first_prompt(const Value& inputs) const {
  return config_.prompt.preview(initial_context(inputs, {}, *tools(nullptr)).vars());
}

RunResult ToolCallingAgent::run(const Value& inputs, EventSink& events, const RunOptions& options) const {
  return ToolCallingRun(*this, *llm_, inputs, events, options).execute();
}

}  // namespace engine::agent
