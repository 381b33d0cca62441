#include "engine/agent/react_agent.h"

#include "engine/agent/answer_watch.h"

namespace engine::agent {
namespace {

// What LangChain appends to the scratchpad for early_stopping_method="generate".
const char* const kGenerateSuffix = "\n\nI now need to return a final answer based on the previous steps:";

// A ReAct run: the prompt context with its scratchpad, on top of what every run shares.
class ReactRun {
 public:
  ReactRun(const ReactAgent& agent, const llm::LlmClient& llm, const Value& inputs, EventSink& events,
           const RunOptions& options)
      : agent_(agent),
        cfg_(agent.config()),
        tools_(agent.tools(options.cancel)),
        watch_(options.stream_answer && !cfg_.output ? std::make_optional<AnswerWatch>(events, agent.parser())
                                                     : std::nullopt),
        core_(llm, watch_ ? *watch_ : events, options, cfg_.limits, tools_->tools),
        run_(agent.initial_context(inputs, options.history, *tools_)) {}

  RunResult execute() { return core_.execute(*run_.inputs, [this] { loop(); }); }

 private:
  void loop() {
    int iterations = 0;
    std::optional<StoppedReason> limit;
    while (!(limit = core_.stop_reason(iterations))) {
      ++iterations;
      std::string text = call_llm("");
      parse::ParsedOutput parsed = parse(text);
      if (auto* finish = std::get_if<parse::AgentFinish>(&parsed)) {
        if (!cfg_.output) return core_.finish(finish->output, finish->log);
        Value answer;
        std::string wrong = read_answer(*cfg_.output, finish->output, answer);
        if (wrong.empty()) return core_.finish(std::move(answer), finish->log);
        // An answer that does not match the output schema goes back to the model, whatever on_parse_error says:
        // the model can fix it, within max_iterations.
        core_.events().emit({events::ParseError{wrong, text}});
        add_step(parse::AgentAction{"_Exception", "Invalid final answer", text}, Observation{wrong, wrong});
        continue;
      }
      if (auto* failure = std::get_if<parse::ParseFailure>(&parsed)) {
        core_.events().emit({events::ParseError{failure->message, text}});
        if (cfg_.on_parse_error == ParseErrorPolicy::Fail) return core_.fail(ErrorKind::ParseFailed, failure->message);
        // As LangChain's handle_parsing_errors: the error goes back to the model as the observation.
        add_step(parse::AgentAction{"_Exception", "Invalid or incomplete response", text},
                 Observation{failure->message, failure->message});
        continue;
      }
      auto& action = std::get<parse::AgentAction>(parsed);
      core_.emit_action(action);
      Observation observation;
      RunCore::ToolOutcome outcome = core_.run_tool(action, observation);
      if (outcome == RunCore::ToolOutcome::ReturnDirect) core_.return_direct(observation);
      add_step(action, std::move(observation));
      if (outcome != RunCore::ToolOutcome::Continue) return;
    }
    if (cfg_.output) return core_.fail_without_answer(*limit);
    if (!core_.stop_early(*limit)) return;
    std::string text = call_llm(kGenerateSuffix);
    parse::ParsedOutput parsed = parse(text);
    if (auto* finish = std::get_if<parse::AgentFinish>(&parsed)) core_.finish_after_stop(finish->output, finish->log);
    else core_.finish_after_stop(text, text);  // LangChain returns the whole text when it is not a final answer
  }

  // A parser's own log lines (a Lua parser's engine.log) join the run's trace, before its verdict's events.
  parse::ParsedOutput parse(std::string_view text) {
    parse::ParseContext context;
    context.log = [this](std::string_view parser, std::string_view line) {
      core_.events().emit({events::ParserLog{std::string(parser), std::string(line)}});
    };
    return agent_.parser().parse_with(text, context);
  }

  // The scratchpad shows the model the text of each observation.
  void add_step(parse::AgentAction action, Observation observation) {
    if (cfg_.scratchpad_messages) append_step_messages(run_.own["agent_scratchpad"], action, observation.text);
    else if (!cfg_.scratchpad) append_step(scratchpad(), action.log, observation.text, cfg_.limits);
    run_.own["intermediate_steps"].push_back(
        Value{{"action", action_json(action)}, {"observation", std::move(observation.text)}});
    core_.record_step(std::move(action), std::move(observation.output));
  }

  std::string& scratchpad() { return run_.own["agent_scratchpad"].get_ref<std::string&>(); }

  std::string call_llm(std::string_view scratchpad_suffix) {
    if (cfg_.scratchpad) {
      std::string pad = cfg_.scratchpad->render(run_.vars());
      pad += scratchpad_suffix;
      run_.own["agent_scratchpad"] = std::move(pad);
    } else if (cfg_.scratchpad_messages) {
      if (!scratchpad_suffix.empty())
        run_.own["agent_scratchpad"].push_back(Value{{"role", "user"}, {"content", scratchpad_suffix}});
    } else {
      scratchpad() += scratchpad_suffix;  // only the one last call (early_stopping: generate) has a suffix
    }
    llm::LlmRequest req;
    cfg_.prompt.render(run_.vars(), req);
    req.stop = cfg_.stop;
    return core_.call_llm(req).text;
  }

  const ReactAgent& agent_;
  const ReactAgentConfig& cfg_;
  std::shared_ptr<const ToolSet> tools_;  // the run's, kept whatever its sources do meanwhile
  std::optional<AnswerWatch> watch_;      // only when the answer is streamed
  RunCore core_;
  RunVars run_;
};

}  // namespace

ReactAgent::ReactAgent(ReactAgentConfig config, std::shared_ptr<const parse::OutputParser> parser,
                       std::shared_ptr<const llm::LlmClient> llm)
    : config_(std::move(config)),
      parser_(std::move(parser)),
      llm_(std::move(llm)),
      context_(config_.memory),
      tools_(config_.tools, config_.changing_tools) {}

RunVars ReactAgent::initial_context(const Value& inputs, std::span<const Exchange> history, const ToolSet& tools) const {
  RunVars run = context_.initial(inputs, history, tools);
  run.own["agent_scratchpad"] = config_.scratchpad_messages ? Value::array() : Value("");
  return run;
}

std::string ReactAgent::render_first_prompt(const Value& inputs) const {
  RunVars run = initial_context(inputs, {}, *tools(nullptr));
  if (config_.scratchpad) run.own["agent_scratchpad"] = config_.scratchpad->render(run.vars());
  return config_.prompt.preview(run.vars());
}

void append_step_messages(Value& messages, const parse::AgentAction& action, const std::string& observation) {
  if (action.tool == "_Exception") {  // a text that was no step: the model's words, then what was wrong with them
    messages.push_back(Value{{"role", "assistant"}, {"content", action.log}});
    messages.push_back(Value{{"role", "user"}, {"content", observation}});
    return;
  }
  std::string id = "call_" + std::to_string(messages.size() / 2 + 1);
  Value arguments = action.tool_input.is_object() ? action.tool_input : Value{{"input", action.tool_input}};
  messages.push_back(Value{{"role", "assistant"},
                           {"content", ""},
                           {"tool_calls", Value::array({Value{{"id", id},
                                                              {"type", "function"},
                                                              {"function", {{"name", action.tool}, {"arguments", std::move(arguments)}}}}})}});
  messages.push_back(Value{{"role", "tool"}, {"tool_call_id", id}, {"name", action.tool}, {"content", observation}});
}

void append_step(std::string& scratchpad, const std::string& log, const std::string& observation,
                 const RunLimits& limits) {
  scratchpad += log;
  scratchpad += '\n';
  scratchpad += limits.observation_prefix;
  scratchpad += observation;
  scratchpad += '\n';
  scratchpad += limits.llm_prefix;
}

RunResult ReactAgent::run(const Value& inputs, EventSink& events, const RunOptions& options) const {
  return ReactRun(*this, *llm_, inputs, events, options).execute();
}

}  // namespace engine::agent
