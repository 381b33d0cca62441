#pragma once
// A tool is immutable and shared by every run of an executor; what a run needs of its own (a Lua state its calls
// changed, say) lives in the ToolInstance the run creates from it.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/error_kind.h"
#include "engine/core/event.h"
#include "engine/core/journal.h"
#include "engine/core/trace_context.h"
#include "engine/core/usage_meter.h"
#include "engine/core/value.h"
#include "engine/schema/schema.h"

namespace engine::tools {

// What a tool gives back: text (a string Value) or structured JSON; for a failure, a message naming the tool.
struct ToolResult {
  Value output;
  std::optional<ErrorKind> error_kind;  // none on success; else tool.error, tool.timeout, ...

  bool ok() const { return !error_kind; }
  std::string text() const;  // observation_text(output)
  static ToolResult success(Value output) { return {std::move(output), std::nullopt}; }
  static ToolResult failure(ErrorKind kind, std::string message) { return {std::move(message), kind}; }
};

// What the model reads of a tool's output: text as it is, anything else as compact JSON (as LangChain's tool
// messages carry a structured result).
std::string observation_text(const Value& output);

// What a tool's instance may use of the run it serves; both may be null.
struct ToolContext {
  EventSink* events = nullptr;    // receives the tool's log lines
  const Cancel* cancel = nullptr;  // a tool that waits (a sub-workflow's model calls) stops waiting when it stops
  UsageMeter* usage = nullptr;     // counts the model calls the tool makes (a sub-workflow's) for its caller
  const TraceContext* trace = nullptr;  // the caller's, when traced: a sub-workflow's model calls join its trace
};

// What an instance knows of the one call it makes.
struct CallContext {
  std::string span_id;   // the call's own span in a traced run (its tool_start names it), else ""
  JournalScope journal;  // where what the call itself does is journaled (a sub-workflow's calls): under the call
  // In a journaled run: the same on every pass of the run (its id and the call's place), so what the call asks of
  // another service can be done once there however often it is made (an Idempotency-Key header). Else "".
  std::string idempotency_key;
};

class ToolInstance {
 public:
  virtual ~ToolInstance() = default;
  // `input` is text (a string) for a tool of one text input, else an object of its arguments. Never throws for
  // anything the tool's code does: failures come back as a ToolResult.
  virtual ToolResult invoke(const Value& input) = 0;
  // The same for a call of a traced run: `span_id` is the call's own span (its tool_start event names it), which a
  // tool that calls out to another process (an MCP server) names as the parent of what it asks there.
  virtual ToolResult invoke(const Value& input, const std::string& span_id) {
    (void)span_id;
    return invoke(input);
  }
  // The same for a call of a journaled run, which a tool that runs a workflow journals under.
  virtual ToolResult invoke(const Value& input, const CallContext& call) { return invoke(input, call.span_id); }
};

class Tool {
 public:
  // `parameters` is the JSON Schema of the tool's arguments, or null for a tool of one text input. It is compiled
  // here with `schema_options`; throws Error "schema.invalid" when it is not a schema the engine can check.
  Tool(std::string name, std::string description, Value parameters = nullptr,
       const schema::SchemaOptions& schema_options = {});
  // A tool whose parameters came from elsewhere (an MCP server) and may use keywords the engine cannot check:
  // `compiled` is empty then, and the arguments are only read as a JSON object, for the tool to check itself.
  Tool(std::string name, std::string description, Value parameters, std::optional<schema::Schema> compiled);
  virtual ~Tool() = default;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const Value& parameters() const { return parameters_; }
  // The compiled parameters; null for a tool of one text input, or one whose parameters cannot be checked here.
  const schema::Schema* parameters_schema() const { return schema_ ? &*schema_ : nullptr; }
  virtual std::string kind() const = 0;  // "lua", "builtin:echo", ... for listings
  // Inferred by each kind from what it can reach (a tool that can write is Once); the workflow's `effect:` says
  // otherwise through AgentTool and the steps.
  virtual Effect effect() const { return Effect::Once; }

  virtual std::unique_ptr<ToolInstance> instantiate(const ToolContext& context) const = 0;

 private:
  std::string name_;
  std::string description_;
  Value parameters_;
  std::optional<schema::Schema> schema_;
};

// Makes `input` the arguments `tool` takes: for a tool with parameters, text is read as a JSON object and the
// object validated. Returns "" when the tool may run (with `input` replaced by the object), else why it may not, in
// words for the model, which gets it back as the call's observation (as LangChain's StructuredTool does).
std::string prepare_arguments(const Tool& tool, Value& input);

}  // namespace engine::tools
