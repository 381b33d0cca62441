#include "engine/agent/react_agent.h"

#include <unordered_map>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::agent {
namespace {

using Clock = std::chrono::steady_clock;

const char* const kForceStopMessage = "Agent stopped due to iteration limit or time limit.";
const char* const kBudgetStopMessage = "Agent stopped due to budget limit.";
// What LangChain appends to the scratchpad for early_stopping_method="generate".
const char* const kGenerateSuffix = "\n\nI now need to return a final answer based on the previous steps:";

Value action_json(const parse::AgentAction& a) {
  return Value{{"tool", a.tool}, {"tool_input", a.tool_input}, {"log", a.log}};
}

// Per-run state: the prompt context, the steps so far, the tool instances (Lua states) created on first use.
class Run {
 public:
  Run(const ReactAgent& agent, const llm::LlmClient& llm, const Value& inputs, EventSink& events,
      const RunOptions& options)
      : agent_(agent),
        cfg_(agent.config()),
        llm_(llm),
        events_(events),
        options_(options),
        ctx_(agent.initial_context(inputs)) {
    if (cfg_.price) result_.cost_usd = 0.0;
  }

  RunResult execute() {
    start_ = Clock::now();
    events_.emit({"chain_start", Value{{"name", "AgentExecutor"}, {"inputs", ctx_["inputs"]}}});
    try {
      loop();
    } catch (const Error& e) {
      fail(e.kind(), e.what());
    }
    result_.elapsed_ms = static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count());
    Value end{{"output", result_.output}, {"stopped_reason", result_.stopped_reason},
              {"elapsed_ms", result_.elapsed_ms}, {"usage", result_.usage_json()}};
    if (result_.error) end["error"] = {{"kind", result_.error->kind}, {"message", result_.error->message}};
    events_.emit({"chain_end", std::move(end)});
    return std::move(result_);
  }

 private:
  bool time_left() const {
    return !cfg_.max_execution_time || Clock::now() - start_ < *cfg_.max_execution_time;
  }

  // The budget a run has spent, if any: checked before each call, so an answer already paid for is still used.
  const char* spent_budget() const {
    if (cfg_.max_tokens_total && result_.usage.total() >= *cfg_.max_tokens_total) return "max_tokens_total";
    if (cfg_.max_cost && result_.cost_usd && *result_.cost_usd >= *cfg_.max_cost) return "max_cost";
    return nullptr;
  }

  void loop() {
    int iterations = 0;
    while (iterations < cfg_.max_iterations && time_left() && !spent_budget()) {
      ++iterations;
      std::string text = call_llm(render_prompt(""));
      parse::ParsedOutput parsed = agent_.parser().parse(text);
      if (auto* finish = std::get_if<parse::AgentFinish>(&parsed)) {
        events_.emit({"agent_finish", Value{{"output", finish->output}, {"log", finish->log}}});
        result_.output = finish->output;
        result_.stopped_reason = "finish";
        return;
      }
      if (auto* failure = std::get_if<parse::ParseFailure>(&parsed)) {
        events_.emit({"parse_error", Value{{"message", failure->message}, {"text", text}}});
        if (cfg_.on_parse_error == ParseErrorPolicy::Fail) return fail("parse.failed", failure->message);
        // As LangChain's handle_parsing_errors: the error goes back to the model as the observation.
        add_step(parse::AgentAction{"_Exception", "Invalid or incomplete response", text}, failure->message);
        continue;
      }
      auto& action = std::get<parse::AgentAction>(parsed);
      events_.emit({"agent_action", action_json(action)});
      if (!run_tool(action)) return;
    }
    const char* budget = spent_budget();
    stop_early(budget ? budget : iterations >= cfg_.max_iterations ? "max_iterations" : "max_execution_time");
  }

  // Runs the action's tool and records the step; returns false when the run is over (return_direct or failure).
  bool run_tool(const parse::AgentAction& action) {
    const AgentTool* entry = nullptr;
    for (const auto& t : cfg_.tools)
      if (t.tool->name() == action.tool) entry = &t;
    if (!entry) {
      std::vector<std::string> names;
      for (const auto& t : cfg_.tools) names.push_back(t.tool->name());
      // LangChain's InvalidTool observation, so the model can correct itself.
      std::string observation =
          action.tool + " is not a valid tool, try one of [" + join(names, ", ") + "].";
      events_.emit({"tool_end", Value{{"tool", action.tool}, {"observation", observation},
                                      {"error", "tool.unknown"}, {"observation_prefix", cfg_.observation_prefix},
                                      {"llm_prefix", cfg_.llm_prefix}}});
      add_step(action, observation);
      return true;
    }
    events_.emit({"tool_start", Value{{"tool", action.tool}, {"input", action.tool_input}}});
    auto& instance = instances_[entry->tool.get()];
    if (!instance) instance = entry->tool->instantiate(&events_);
    tools::ToolResult r = instance->invoke(action.tool_input);
    Value ev{{"tool", action.tool}, {"observation", r.observation}, {"observation_prefix", cfg_.observation_prefix},
             {"llm_prefix", cfg_.llm_prefix}};
    if (!r.ok()) ev["error"] = r.error_kind;
    events_.emit({"tool_end", std::move(ev)});
    add_step(action, r.observation);
    if (!r.ok() && entry->fail_run_on_error) {
      fail(r.error_kind, r.observation);
      return false;
    }
    if (entry->return_direct && r.ok()) {
      result_.output = r.observation;
      result_.stopped_reason = "return_direct";
      return false;
    }
    return true;
  }

  void add_step(parse::AgentAction action, std::string observation) {
    ctx_["intermediate_steps"].push_back(
        Value{{"action", action_json(action)}, {"observation", observation}});
    result_.intermediate_steps.push_back(AgentStep{std::move(action), std::move(observation)});
  }

  llm::LlmRequest render_prompt(std::string_view scratchpad_suffix) {
    std::string pad = cfg_.scratchpad.render(ctx_);
    pad += scratchpad_suffix;
    ctx_["agent_scratchpad"] = std::move(pad);
    llm::LlmRequest req;
    cfg_.prompt.render(ctx_, req);
    return req;
  }

  std::string call_llm(llm::LlmRequest req) {
    req.stop = cfg_.stop;
    req.events = &events_;
    req.temperature = cfg_.temperature;
    req.max_tokens = cfg_.max_tokens;
    req.call_index = result_.llm_calls;
    req.stream = options_.stream;
    Value start{{"prompt", req.prompt}, {"call", req.call_index}, {"llm", llm_.describe()}};
    if (req.stream) start["stream"] = true;
    if (!req.messages.empty()) {
      Value messages = Value::array();
      for (const auto& m : req.messages) messages.push_back(Value{{"role", m.role}, {"content", m.content}});
      start["messages"] = std::move(messages);
    }
    events_.emit({"llm_start", std::move(start)});
    llm::LlmResponse resp = llm_.complete(req);
    ++result_.llm_calls;
    result_.usage += resp.usage;
    Value usage{{"prompt_tokens", resp.usage.prompt_tokens},
                {"completion_tokens", resp.usage.completion_tokens},
                {"estimated", resp.usage_estimated}};
    if (cfg_.price) {
      double cost = cfg_.price->cost(resp.usage);
      *result_.cost_usd += cost;
      usage["cost_usd"] = cost;
    }
    Value end{{"text", resp.text}, {"finish_reason", resp.finish_reason}, {"usage", std::move(usage)}};
    if (!resp.tool_calls.empty()) end["tool_calls"] = llm::tool_calls_to_json(resp.tool_calls);
    events_.emit({"llm_end", std::move(end)});
    return std::move(resp.text);
  }

  void stop_early(const char* reason) {
    result_.stopped_reason = reason;
    events_.emit({"early_stop", Value{{"reason", reason}}});
    // A spent budget allows no further call, whatever the early-stopping method.
    if (cfg_.early_stopping == EarlyStopping::Force || spent_budget()) {
      result_.output = spent_budget() ? kBudgetStopMessage : kForceStopMessage;
      return;
    }
    std::string text = call_llm(render_prompt(kGenerateSuffix));
    parse::ParsedOutput parsed = agent_.parser().parse(text);
    if (auto* finish = std::get_if<parse::AgentFinish>(&parsed)) {
      events_.emit({"agent_finish", Value{{"output", finish->output}, {"log", finish->log}}});
      result_.output = finish->output;
    } else {
      result_.output = text;  // LangChain returns the whole text when it is not a final answer
    }
  }

  void fail(const std::string& kind, const std::string& message) {
    result_.stopped_reason = "error";
    result_.error = RunError{kind, message};
    events_.emit({"error", Value{{"kind", kind}, {"message", message}}});
  }

  const ReactAgent& agent_;
  const ReactAgentConfig& cfg_;
  const llm::LlmClient& llm_;
  EventSink& events_;
  const RunOptions& options_;
  Value ctx_;
  Clock::time_point start_;
  RunResult result_;
  std::unordered_map<const tools::Tool*, std::unique_ptr<tools::ToolInstance>> instances_;
};

}  // namespace

ReactAgent::ReactAgent(ReactAgentConfig config, parse::ReactParser parser, std::shared_ptr<const llm::LlmClient> llm)
    : config_(std::move(config)), parser_(std::move(parser)), llm_(std::move(llm)) {
  tools_value_ = Value::array();
  std::vector<std::string> names, lines;
  for (const auto& t : config_.tools) {
    tools_value_.push_back(Value{{"name", t.tool->name()}, {"description", t.tool->description()}});
    names.push_back(t.tool->name());
    lines.push_back(t.tool->name() + ": " + t.tool->description());
  }
  tool_names_ = join(names, ", ");
  tool_descriptions_ = join(lines, "\n");
}

Value ReactAgent::initial_context(const Value& inputs) const {
  Value ctx = inputs.is_object() ? inputs : Value::object();
  ctx["inputs"] = inputs;
  ctx["tools"] = tools_value_;
  ctx["tool_names"] = tool_names_;
  ctx["tool_descriptions"] = tool_descriptions_;
  ctx["intermediate_steps"] = Value::array();
  ctx["agent_scratchpad"] = "";
  return ctx;
}

std::string ReactAgent::render_first_prompt(const Value& inputs) const {
  Value ctx = initial_context(inputs);
  ctx["agent_scratchpad"] = config_.scratchpad.render(ctx);
  return config_.prompt.preview(ctx);
}

RunResult ReactAgent::run(const Value& inputs, EventSink& events, const RunOptions& options) const {
  return Run(*this, *llm_, inputs, events, options).execute();
}

}  // namespace engine::agent
