#pragma once
// What every agent's run shares, whatever its loop: the limits (iterations, time, token and cost budgets), the LLM
// call with its events, usage and cost, tool calls on the run's own tool instances, and the result. An agent's run
// owns one RunCore and adds its own loop (ReAct text, or native tool calls).
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/agent/memory.h"
#include "engine/agent/run_result.h"
#include "engine/core/approval.h"
#include "engine/core/event.h"
#include "engine/core/journal.h"
#include "engine/core/trace_context.h"
#include "engine/core/usage_meter.h"
#include "engine/llm/llm_client.h"
#include "engine/parse/agent_output.h"
#include "engine/tools/tool.h"

namespace engine::agent {

enum class EarlyStopping { Force, Generate };

struct AgentTool {
  std::shared_ptr<const tools::Tool> tool;
  bool return_direct = false;
  bool fail_run_on_error = false;  // else a tool's failure is an observation and the run goes on
  std::optional<Effect> effect;    // the workflow's `effect:`; none: the tool's own
  Effect effect_of() const { return effect.value_or(tool->effect()); }
  ApprovalPolicy approval;         // the workflow's `approve:` for the entry it came from
};

// What a tool call gave: the output as the tool returned it (kept in the step, the events and --json) and the text
// the model reads of it.
struct Observation {
  Value output;
  std::string text;
};

// The limits and call settings every agent kind takes from the workflow's agent block.
struct RunLimits {
  int max_iterations = 15;
  std::optional<std::chrono::milliseconds> max_execution_time;
  EarlyStopping early_stopping = EarlyStopping::Force;
  // Budgets: the run stops cleanly before a call once it has used this much.
  std::optional<long> max_tokens_total;
  std::optional<double> max_cost;   // USD; needs `price`
  std::optional<llm::Price> price;  // the model's, when known: every run then reports its cost
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::string observation_prefix = "Observation: ";  // for the console, as LangChain's verbose output
  std::string llm_prefix = "Thought: ";
};

struct RunOptions {
  bool stream = false;  // the model's text as it arrives, as "llm_token" events
  // The final answer as it arrives, as "answer_token" events (agent/answer_watch.h): a ReAct agent whose parser
  // can read an answer from a partial text and that has no output schema. The model is asked to stream.
  bool stream_answer = false;
  // The session's exchanges so far (after its last reset), oldest first; the agent's memory picks what the prompt
  // sees. The caller owns them: the session, not the agent, remembers.
  std::span<const Exchange> history;
  // Stops the run when it stops (SIGINT, a step's timeout): the call in flight is abandoned, and the run ends with
  // stopped reason cancelled (or timeout). May be null.
  const Cancel* cancel = nullptr;
  // What the run's model clients keep for it (llm/run_state.h); the executor makes one when none is given.
  llm::RunState* llm_state = nullptr;
  // Counts every model call the run makes, its tools' sub-workflows included; the executor makes one (under this
  // one, when given: a sub-workflow's calls count for the step or tool that ran it).
  UsageMeter* usage = nullptr;
  // The run's id, which every event carries (EventPlace); the executor makes one when none is given.
  std::string_view run_id;
  // What chain_start names: the workflow (its `name:`), or the step whose agent this is; the executor sets it.
  std::string_view chain_name;
  // Runs once the agent has its answer, before chain_end (the executor renders its declared outputs here): an
  // Error it throws fails the run, so chain_end reports the run as it ended. What the run starts (a step, a
  // sub-workflow) is given options without it.
  std::function<void(RunResult&)> finishing;
  // Set when the run is traced (its spans recorded or exported; the caller keeps it): chain_start names the trace and
  // the caller's span it joins, each model call gets a span id its request sends as a traceparent, and what the run
  // starts (steps, workflows used as tools) is traced with it. May be null.
  const TraceContext* trace = nullptr;
  // Where the run writes its journal (core/journal.h), and reads it when resumed: its model calls, tool calls and
  // steps under their paths. None: the run keeps no journal.
  JournalScope journal;
  // `engine run --yes`: a tool call whose `approve:` asks is made without waiting for a person (docs/people.md).
  bool approve_asked = false;
  // Decisions given in place (a test's `decisions:`), asked before a call that asks waits; null: none.
  const ToolDecider* decide = nullptr;
};

class RunCore {
 public:
  RunCore(const llm::LlmClient& llm, EventSink& events, const RunOptions& options, const RunLimits& limits,
          const std::vector<AgentTool>& tools);

  // chain_start, the agent's loop, chain_end; an Error the loop throws fails the run.
  RunResult execute(const Value& inputs, const std::function<void()>& loop);

  // Why the run may not start another iteration (max_iterations, max_execution_time, max_tokens_total, max_cost),
  // or none when it may.
  std::optional<StoppedReason> stop_reason(int iterations) const;
  // Records an early stop; returns true when the agent should make its one last call (early_stopping: generate,
  // and no budget spent), having set the output (and emitted agent_finish) otherwise.
  bool stop_early(StoppedReason reason);
  // A run with an output schema that reaches a limit has no answer to give: it fails ("output.missing").
  void fail_without_answer(StoppedReason limit);
  // The one last call's answer (early_stopping: generate) ends the run, as LangChain's AgentFinish does.
  void finish_after_stop(Value output, const std::string& log);

  // Sends the request (with the limits' temperature and max_tokens, the call's index, streaming) and accounts for
  // the answer: llm_start and llm_end events, usage, cost.
  llm::LlmResponse call_llm(llm::LlmRequest& request);

  // Runs the action's tool on the run's instance of it (LangChain's invalid-tool observation for a name that is not
  // one), emitting tool_start and tool_end. A tool with parameters gets its input as a JSON object (text is parsed,
  // and the action's input becomes the object), validated first: arguments that do not fit are the observation and
  // the tool does not run. Returns false when the run is over: a return_direct tool answered, or a tool with
  // on_error: fail failed. The caller records the step.
  enum class ToolOutcome {
    Continue,      // the observation goes back to the model
    ReturnDirect,  // a return_direct tool answered: its observation is the answer if it was its step's only call
    Failed,        // a tool with on_error: fail failed; the run is over
  };
  ToolOutcome run_tool(parse::AgentAction& action, Observation& observation);
  // A call that is answered without running a tool (an unknown tool, arguments that do not fit, a final answer
  // that does not match): `why` is the observation, `kind` the tool_end's error.
  void refuse_call(const parse::AgentAction& action, std::string why, ErrorKind kind, Observation& observation);
  // Ends the run with a return_direct tool's observation as the answer.
  void return_direct(const Observation& observation);

  void record_step(parse::AgentAction action, Value observation);
  void emit_action(const parse::AgentAction& action);
  void finish(Value output, const std::string& log);
  void fail(ErrorKind kind, const std::string& message);
  void fail(RunError error);

  EventSink& events() { return events_; }
  RunResult& result() { return result_; }
  const std::vector<AgentTool>& tools() const { return tools_; }

 private:
  std::optional<StoppedReason> spent_budget() const;
  // The id a tool call's tool_start and tool_end carry: the model's for a native call, else `call_N` (N from 1).
  std::string next_call_id(const parse::AgentAction& action);

  const llm::LlmClient& llm_;
  EventSink& events_;
  const RunOptions& options_;
  const RunLimits& limits_;
  const std::vector<AgentTool>& tools_;
  std::chrono::steady_clock::time_point start_;
  // The agent's calls and its tools' sub-workflows' calls: what its usage reports and its budgets bind on.
  UsageMeter meter_;
  int calls_made_ = 0;  // by the agent itself: each call's index
  int tool_calls_made_ = 0;  // by the agent itself: each call's id, when the model gave none
  RunResult result_;
  std::unordered_map<const tools::Tool*, std::unique_ptr<tools::ToolInstance>> instances_;
};

Value action_json(const parse::AgentAction& action);
// A traced run's chain_start names its trace (`trace_id`), the caller's span it joins (`parent_span_id`), and
// `sampled: false` when the caller asked that it not be recorded.
void add_trace(events::ChainStart& chain_start, const TraceContext* trace);

}  // namespace engine::agent
