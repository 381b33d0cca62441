#pragma once
// What a finished run hands back: LangChain's {output, intermediate_steps} plus usage and why it stopped.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/event_kinds.h"
#include "engine/core/stopped_reason.h"
#include "engine/core/usage_meter.h"
#include "engine/core/value.h"
#include "engine/llm/llm_client.h"
#include "engine/parse/agent_output.h"

namespace engine::agent {

struct AgentStep {
  parse::AgentAction action;
  Value observation;  // the tool's output: text (a string) or JSON
};

// Why a run failed: the Error's kind and message, and where it points (a template's line in the workflow file),
// kept so the console can show the line with a caret, as it shows a build error.
struct RunError {
  ErrorKind kind;
  std::string message;
  SourceLoc at;
  std::string source_line;

  // `prefix` goes before the message: "step 'reply' failed: ".
  static RunError from(const Error& e, const std::string& prefix = "");
  Error to_error(const std::string& prefix = "") const { return Error(kind, prefix + message, at, source_line); }
  // "file:line:col: message", the quoted line and the caret, as Error::formatted().
  std::string formatted() const { return to_error().formatted(); }
  Value to_json() const;  // {kind, message, at: "file:line:col" when known}
  events::ErrorInfo info() const;  // the same, as events carry it
};

struct RunResult {
  Value output = "";  // the answer: text (a string), or the structured answer of an agent with an output schema
  Value outputs = Value::object();  // the workflow's declared outputs, rendered
  Value steps = Value::object();    // a workflow of steps: each step by name, {status, output, elapsed_ms}
  std::vector<AgentStep> intermediate_steps;
  llm::TokenUsage usage;
  std::optional<double> cost_usd;  // when the model's price is known
  int llm_calls = 0;
  double elapsed_ms = 0;  // to the microsecond (core/elapsed.h)
  StoppedReason stopped_reason = StoppedReason::Error;  // until it ends
  std::optional<RunError> error;
  std::string run_id;  // what its events carry

  bool ok() const { return !error; }
  Value to_json() const;  // the --json document
  Value usage_json() const;  // {prompt_tokens, completion_tokens, total_tokens, llm_calls, cost_usd when known}
  // The chain_end event that says how it ended.
  events::ChainEnd chain_end() const;
  // usage, llm_calls and cost_usd from what a meter counted; the cost is known when `priced` or a call was priced.
  void take_usage(const SpentUsage& spent, bool priced);
};

Value step_to_json(const AgentStep& step);


}  // namespace engine::agent
