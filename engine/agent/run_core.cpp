#include "engine/agent/run_core.h"

#include <new>

#include "engine/agent/llm_call.h"
#include "engine/core/elapsed.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/tools/journaled_call.h"

namespace engine::agent {
namespace {

using Clock = std::chrono::steady_clock;

const char* const kForceStopMessage = "Agent stopped due to iteration limit or time limit.";
const char* const kBudgetStopMessage = "Agent stopped due to budget limit.";

}  // namespace

Value action_json(const parse::AgentAction& a) {
  return Value{{"tool", a.tool}, {"tool_input", a.tool_input}, {"log", a.log}};
}

void add_trace(events::ChainStart& chain_start, const TraceContext* trace) {
  if (!trace) return;
  chain_start.trace_id = trace->trace_id;
  chain_start.parent_span_id = trace->parent_span_id;
  chain_start.parent_local = trace->parent_local;
  if (!trace->sampled) chain_start.sampled = false;
}

RunCore::RunCore(const llm::LlmClient& llm, EventSink& events, const RunOptions& options, const RunLimits& limits,
                 const std::vector<AgentTool>& tools)
    : llm_(llm), events_(events), options_(options), limits_(limits), tools_(tools), meter_(options.usage) {
  if (limits_.price) result_.cost_usd = 0.0;
}

RunResult RunCore::execute(const Value& inputs, const std::function<void()>& loop) {
  start_ = Clock::now();
  if (events_.detail() != EventDetail::None) {
    // Named for what runs, as a trace with sub-workflows needs; `chain` is what LangChain would call it.
    events::ChainStart start;
    start.name = options_.chain_name.empty() ? std::string("AgentExecutor") : std::string(options_.chain_name);
    start.chain = ChainKind::Agent;
    // How this agent writes its scratchpad, for whoever shows the run as LangChain's verbose mode does.
    start.observation_prefix = limits_.observation_prefix;
    start.llm_prefix = limits_.llm_prefix;
    if (events_.detail() == EventDetail::Full) start.inputs = inputs;
    add_trace(start, options_.trace);
    events_.emit({std::move(start)});
  }
  try {
    loop();
  } catch (const Error& e) {
    fail(RunError::from(e));
  } catch (const std::bad_alloc&) {
    // Every input is bounded, so this is a limit set too high for the machine; the run fails, the process goes on.
    fail(ErrorKind::EngineOutOfMemory, "the run ran out of memory");
  } catch (const std::exception& e) {
    fail(ErrorKind::EngineInternal, std::string("internal error: ") + e.what());
  }
  if (options_.finishing && !result_.error) {
    try {
      options_.finishing(result_);
    } catch (const Error& e) {
      fail(RunError::from(e));
    }
  }
  result_.elapsed_ms = engine::elapsed_ms(start_);
  result_.take_usage(meter_.spent(), limits_.price.has_value());
  events_.emit({result_.chain_end()});
  return std::move(result_);
}

// Checked before each call, so an answer already paid for is still used. What the agent's tools spent running
// sub-workflows counts as its own calls do.
std::optional<StoppedReason> RunCore::spent_budget() const {
  SpentUsage spent = meter_.spent();
  if (limits_.max_tokens_total && spent.total_tokens() >= *limits_.max_tokens_total) return StoppedReason::MaxTokensTotal;
  if (limits_.max_cost && spent.priced_calls > 0 && spent.cost_usd >= *limits_.max_cost) return StoppedReason::MaxCost;
  return std::nullopt;
}

std::optional<StoppedReason> RunCore::stop_reason(int iterations) const {
  if (options_.cancel && options_.cancel->stopped()) throw_stopped(*options_.cancel);
  if (auto budget = spent_budget()) return budget;
  if (iterations >= limits_.max_iterations) return StoppedReason::MaxIterations;
  if (limits_.max_execution_time && Clock::now() - start_ >= *limits_.max_execution_time)
    return StoppedReason::MaxExecutionTime;
  return std::nullopt;
}

bool RunCore::stop_early(StoppedReason reason) {
  result_.stopped_reason = reason;
  events_.emit({events::EarlyStop{reason}});
  // A spent budget allows no further call, whatever the early-stopping method.
  bool budget = spent_budget().has_value();
  if (limits_.early_stopping == EarlyStopping::Generate && !budget) return true;
  result_.output = budget ? kBudgetStopMessage : kForceStopMessage;
  events_.emit({events::AgentFinish{result_.output, ""}});
  return false;
}

void RunCore::fail_without_answer(StoppedReason limit) {
  events_.emit({events::EarlyStop{limit}});
  fail(ErrorKind::OutputMissing,
       "the run reached " + std::string(name_of(limit)) + " before an answer that matches the output schema");
  result_.stopped_reason = limit;
}

void RunCore::finish_after_stop(Value output, const std::string& log) {
  events_.emit({events::AgentFinish{output, log}});
  result_.output = std::move(output);
}

void RunCore::return_direct(const Observation& observation) {
  result_.output = observation.text;
  result_.stopped_reason = StoppedReason::ReturnDirect;
  events_.emit({events::AgentFinish{result_.output, ""}});
}

llm::LlmResponse RunCore::call_llm(llm::LlmRequest& req) {
  req.events = &events_;
  req.temperature = limits_.temperature;
  req.max_tokens = limits_.max_tokens;
  req.call_index = calls_made_++;
  req.stream = options_.stream || options_.stream_answer;
  req.cancel = options_.cancel;
  req.run_state = options_.llm_state;
  LlmCall call = agent::call_llm(llm_, req, events_, limits_.price, &meter_, options_.trace, options_.journal);
  return std::move(call.response);
}

std::string RunCore::next_call_id(const parse::AgentAction& action) {
  ++tool_calls_made_;
  return action.tool_call_id.empty() ? "call_" + std::to_string(tool_calls_made_) : action.tool_call_id;
}

void RunCore::refuse_call(const parse::AgentAction& action, std::string why, ErrorKind kind,
                          Observation& observation) {
  observation.text = why;
  observation.output = std::move(why);
  events_.emit({events::ToolEnd{action.tool, next_call_id(action), observation.output, std::string(name_of(kind))}});
}

RunCore::ToolOutcome RunCore::run_tool(parse::AgentAction& action, Observation& observation) {
  const AgentTool* entry = nullptr;
  for (const auto& t : tools_)
    if (t.tool->name() == action.tool) entry = &t;
  if (!entry) {
    std::vector<std::string> names;
    for (const auto& t : tools_) names.push_back(t.tool->name());
    // LangChain's InvalidTool observation, so the model can correct itself.
    refuse_call(action, action.tool + " is not a valid tool, try one of [" + join(names, ", ") + "].",
                ErrorKind::ToolUnknown, observation);
    return ToolOutcome::Continue;
  }
  // Arguments that do not fit the tool's parameters go back to the model; the tool is not run.
  if (std::string refused = tools::prepare_arguments(*entry->tool, action.tool_input); !refused.empty()) {
    refuse_call(action, std::move(refused), ErrorKind::ToolInvalidArguments, observation);
    return ToolOutcome::Continue;
  }
  std::string call_id = next_call_id(action);
  // A traced run's call has its span's id before it starts: a tool that calls another process names it there.
  std::string span_id = options_.trace ? new_span_id() : std::string();
  events_.emit({events::ToolStart{action.tool, call_id, action.tool_input, span_id}});
  auto& instance = instances_[entry->tool.get()];
  if (!instance) instance = entry->tool->instantiate({&events_, options_.cancel, &meter_, options_.trace});
  tools::ToolResult r = tools::call_approved(*instance, *entry->tool, entry->effect_of(),
                                             {entry->approval.for_tool(action.tool), options_.approve_asked, options_.decide},
                                             action.tool_input, span_id, options_.journal, call_id, options_.cancel);
  events_.emit({events::ToolEnd{action.tool, call_id, r.output, r.ok() ? "" : std::string(name_of(*r.error_kind)),
                                entry->return_direct}});
  // A run stopped while its tool ran ends here, whatever the tool made of it (a script may have caught the error
  // its HTTP request ended with, and answered): not an observation, not a return_direct answer.
  if (options_.cancel && options_.cancel->stopped()) throw_stopped(*options_.cancel);
  observation.text = tools::observation_text(r.output);
  observation.output = std::move(r.output);
  if (!r.ok() && entry->fail_run_on_error) {
    fail(*r.error_kind, observation.text);
    return ToolOutcome::Failed;
  }
  return entry->return_direct && r.ok() ? ToolOutcome::ReturnDirect : ToolOutcome::Continue;
}

void RunCore::record_step(parse::AgentAction action, Value observation) {
  result_.intermediate_steps.push_back(AgentStep{std::move(action), std::move(observation)});
}

void RunCore::emit_action(const parse::AgentAction& action) {
  events_.emit({events::AgentAction{action.tool, action.tool_input, action.log}});
}

void RunCore::finish(Value output, const std::string& log) {
  events_.emit({events::AgentFinish{output, log}});
  result_.output = std::move(output);
  result_.stopped_reason = StoppedReason::Finish;
}

void RunCore::fail(ErrorKind kind, const std::string& message) { fail(RunError{kind, message, {}, {}}); }

void RunCore::fail(RunError error) {
  result_.stopped_reason = stopped_reason_of(error.kind);
  events_.emit({events::Failure{error.info()}});
  result_.error = std::move(error);
}

}  // namespace engine::agent
