#pragma once
// What each kind of event holds, as a type: emitters fill the fields, sinks read them, and JSON is made only where
// events leave the process (core/event_json.h). docs/trace.md lists the fields as a trace file writes them.
//
// Each kind lists its fields once, in `fields(self, f)`, in the order a trace writes them: `f.always` for a field
// always written, `f.if_set` for one written only when it holds something (a non-empty text or list, true, a value
// present), `f.full` for one a sink reading only a summary does not get (a prompt, the inputs). The same list
// writes JSON text, builds a JSON value and reads a stored record back.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/step_kind.h"
#include "engine/core/stopped_reason.h"
#include "engine/core/value.h"

namespace engine {

// Every kind of event, in the order of the `EventData` variant (core/event.h).
enum class EventType {
  ChainStart,
  ChainEnd,
  LlmStart,
  LlmToken,
  AnswerToken,
  LlmRetry,
  LlmEnd,
  AgentAction,
  AgentFinish,
  ToolStart,
  ToolLog,
  ToolProgress,
  ParserLog,
  ToolEnd,
  ParseError,
  EarlyStop,
  Error,
  StepStart,
  StepRetry,
  StepEnd,
};

// "chain_start", "llm_end", ...: the name traces and tests use.
std::string_view event_name(EventType type);
// The type of that name, or none.
std::optional<EventType> event_type_named(std::string_view name);

// How a step ended, as step_end says it.
enum class StepStatus { Done, Skipped, Failed };
std::string_view name_of(StepStatus status);
std::optional<StepStatus> step_status_named(std::string_view name);

// What a chain is, named as LangChain names its chains: "AgentExecutor" for an agent, "Workflow" for a workflow of
// steps.
enum class ChainKind { Agent, Workflow };
std::string_view name_of(ChainKind kind);
std::optional<ChainKind> chain_kind_named(std::string_view name);

namespace events {

// An error as events carry it: its kind (docs/errors.md), its message, and its place when it has one.
struct ErrorInfo {
  std::string kind;
  std::string message;
  std::string at;  // "file:line:col"
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("kind", s.kind);
    f.always("message", s.message);
    f.if_set("at", s.at);
  }
};

// What one model call used.
struct CallUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  bool estimated = false;  // counted by the engine: the server said nothing
  std::optional<double> cost_usd;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("prompt_tokens", s.prompt_tokens);
    f.always("completion_tokens", s.completion_tokens);
    f.always("estimated", s.estimated);
    f.if_set("cost_usd", s.cost_usd);
  }
};

// What a whole run used.
struct RunUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  long total_tokens = 0;
  long llm_calls = 0;
  std::optional<double> cost_usd;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("prompt_tokens", s.prompt_tokens);
    f.always("completion_tokens", s.completion_tokens);
    f.always("total_tokens", s.total_tokens);
    f.always("llm_calls", s.llm_calls);
    f.if_set("cost_usd", s.cost_usd);
  }
};

// A tool call the model made, as the model wrote it.
struct ToolCallMade {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text, as the model wrote it
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("id", s.id);
    f.always("name", s.name);
    f.always("arguments", s.arguments);
  }
};

// One message of a chat prompt.
struct SentMessage {
  std::string role;
  std::string content;
  std::vector<ToolCallMade> tool_calls;
  std::string tool_call_id;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("role", s.role);
    f.always("content", s.content);
    f.if_set("tool_calls", s.tool_calls);
    f.if_set("tool_call_id", s.tool_call_id);
  }
};

struct ChainStart {
  static constexpr EventType type = EventType::ChainStart;
  std::string name;  // the workflow's name:, the agent step's name, or "AgentExecutor" / "Workflow"
  ChainKind chain = ChainKind::Workflow;
  std::string observation_prefix;  // how an agent writes its scratchpad
  std::string llm_prefix;
  std::optional<Value> inputs;
  // A traced run's place in its trace (docs/observability.md).
  std::string trace_id;
  std::string parent_span_id;
  bool parent_local = false;       // the parent span is the engine's own (a served request's)
  std::optional<bool> sampled;     // set, to false, only when the caller asked for no spans
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("name", s.name);
    f.always("chain", s.chain);
    f.if_set("observation_prefix", s.observation_prefix);
    f.if_set("llm_prefix", s.llm_prefix);
    f.full("inputs", s.inputs);
    f.if_set("trace_id", s.trace_id);
    f.if_set("parent_span_id", s.parent_span_id);
    f.if_set("parent_local", s.parent_local);
    f.if_set("sampled", s.sampled);
  }
};

struct ChainEnd {
  static constexpr EventType type = EventType::ChainEnd;
  Value output;
  StoppedReason stopped_reason = StoppedReason::Finish;
  double elapsed_ms = 0;
  RunUsage usage;
  std::optional<ErrorInfo> error;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("output", s.output);
    f.always("stopped_reason", s.stopped_reason);
    f.always("elapsed_ms", s.elapsed_ms);
    f.always("usage", s.usage);
    f.if_set("error", s.error);
  }
};

struct LlmStart {
  static constexpr EventType type = EventType::LlmStart;
  long call = 0;      // which model call of its agent, from 0: with the run's id and the path, pairs it with its end
  std::string llm;    // "provider:model"
  bool stream = false;
  std::string span_id;  // a traced run's: the id its request sent as traceparent
  std::optional<double> temperature;
  std::optional<long> max_tokens;
  std::vector<std::string> stop;
  std::optional<std::string> prompt;
  std::vector<SentMessage> messages;  // a chat prompt, with full detail
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("call", s.call);
    f.always("llm", s.llm);
    f.if_set("stream", s.stream);
    f.if_set("span_id", s.span_id);
    f.if_set("temperature", s.temperature);
    f.if_set("max_tokens", s.max_tokens);
    f.if_set("stop", s.stop);
    f.full("prompt", s.prompt);
    f.full("messages", s.messages);
  }
};

struct LlmToken {
  static constexpr EventType type = EventType::LlmToken;
  std::string text;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("text", s.text);
  }
};

struct AnswerToken {
  static constexpr EventType type = EventType::AnswerToken;
  std::string text;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("text", s.text);
  }
};

struct LlmRetry {
  static constexpr EventType type = EventType::LlmRetry;
  long attempt = 0;
  std::string error;  // the status and the server's message
  long wait_ms = 0;
  bool discarded_partial = false;  // text of the failed attempt was already shown
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("attempt", s.attempt);
    f.always("error", s.error);
    f.always("wait_ms", s.wait_ms);
    f.if_set("discarded_partial", s.discarded_partial);
  }
};

// A model call's end: its answer, or, for a call that failed, only its error.
struct LlmEnd {
  static constexpr EventType type = EventType::LlmEnd;
  long call = 0;
  std::optional<ErrorInfo> error;
  std::string text;
  std::string finish_reason;
  CallUsage usage;
  std::vector<ToolCallMade> tool_calls;
  std::string model;  // as the server named them
  std::string id;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("call", s.call);
    f.if_set("error", s.error);
    if (s.error) return;
    f.always("text", s.text);
    f.always("finish_reason", s.finish_reason);
    f.always("usage", s.usage);
    f.if_set("tool_calls", s.tool_calls);
    f.if_set("model", s.model);
    f.if_set("id", s.id);
  }
};

struct AgentAction {
  static constexpr EventType type = EventType::AgentAction;
  std::string tool;
  Value tool_input;  // text, or an object of arguments
  std::string log;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("tool", s.tool);
    f.always("tool_input", s.tool_input);
    f.always("log", s.log);
  }
};

struct AgentFinish {
  static constexpr EventType type = EventType::AgentFinish;
  Value output;
  std::string log;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("output", s.output);
    f.always("log", s.log);
  }
};

struct ToolStart {
  static constexpr EventType type = EventType::ToolStart;
  std::string tool;
  std::string call_id;  // with the run's id and the path, pairs it with its tool_end
  Value input;
  std::string span_id;  // a traced run's: the parent of what the tool asks elsewhere
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("tool", s.tool);
    f.always("call_id", s.call_id);
    f.always("input", s.input);
    f.if_set("span_id", s.span_id);
  }
};

struct ToolLog {
  static constexpr EventType type = EventType::ToolLog;
  std::string tool;
  std::string message;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("tool", s.tool);
    f.always("message", s.message);
  }
};

// An MCP server's progress notification: its numbers as the server sent them.
struct ToolProgress {
  static constexpr EventType type = EventType::ToolProgress;
  std::string tool;
  Value progress;
  std::optional<Value> total;
  std::optional<std::string> message;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("tool", s.tool);
    f.always("progress", s.progress);
    f.if_set("total", s.total);
    f.if_set("message", s.message);
  }
};

struct ParserLog {
  static constexpr EventType type = EventType::ParserLog;
  std::string parser;  // its script's path
  std::string message;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("parser", s.parser);
    f.always("message", s.message);
  }
};

struct ToolEnd {
  static constexpr EventType type = EventType::ToolEnd;
  std::string tool;
  std::string call_id;
  Value observation;  // the tool's output: text, or JSON as the tool returned it
  std::string error;  // the kind, when the call failed or was refused
  bool return_direct = false;
  bool failed() const { return !error.empty(); }
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("tool", s.tool);
    f.always("call_id", s.call_id);
    f.always("observation", s.observation);
    f.if_set("return_direct", s.return_direct);
    f.if_set("error", s.error);
  }
};

struct ParseError {
  static constexpr EventType type = EventType::ParseError;
  std::string message;
  std::string text;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("message", s.message);
    f.always("text", s.text);
  }
};

struct EarlyStop {
  static constexpr EventType type = EventType::EarlyStop;
  StoppedReason reason = StoppedReason::MaxIterations;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("reason", s.reason);
  }
};

// The run failed: its error's fields at the top of the event.
struct Failure {
  static constexpr EventType type = EventType::Error;
  ErrorInfo error;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    ErrorInfo::fields(s.error, f);
  }
};

struct StepStart {
  static constexpr EventType type = EventType::StepStart;
  std::string step;
  StepKind kind = StepKind::Template;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("step", s.step);
    f.always("kind", s.kind);
  }
};

struct StepRetry {
  static constexpr EventType type = EventType::StepRetry;
  std::string step;
  long attempt = 0;  // the one that failed, from 1
  long wait_ms = 0;
  ErrorInfo error;
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("step", s.step);
    f.always("attempt", s.attempt);
    f.always("wait_ms", s.wait_ms);
    f.always("error", s.error);
  }
};

struct StepEnd {
  static constexpr EventType type = EventType::StepEnd;
  std::string step;
  StepStatus status = StepStatus::Done;
  double elapsed_ms = 0;
  std::optional<ErrorInfo> error;
  std::optional<Value> inputs;  // what a failed step was given, rendered
  template <class Self, class F>
  static void fields(Self& s, F& f) {
    f.always("step", s.step);
    f.always("status", s.status);
    f.always("elapsed_ms", s.elapsed_ms);
    f.if_set("error", s.error);
    f.if_set("inputs", s.inputs);
  }
};

}  // namespace events
}  // namespace engine
