#pragma once
// A span as OpenTelemetry has it: one timed operation of a run (the run, a step, an agent, a model call, a tool
// call) in a tree of them, named and attributed as the GenAI semantic conventions say (docs/observability.md).
#include <chrono>
#include <string>

#include "engine/core/redact.h"
#include "engine/core/value.h"

namespace engine::trace {

enum class SpanKind { Internal = 1, Server = 2, Client = 3 };

struct Span {
  std::string trace_id;   // 32 hex digits
  std::string span_id;    // 16 hex digits
  std::string parent_id;  // empty for the root
  bool remote_parent = false;  // the parent is the caller's span (a traceparent), in another process
  std::string name;       // "invoke_workflow triage", "chat gpt-4o", "execute_tool search", a step's name
  SpanKind kind = SpanKind::Internal;
  std::chrono::steady_clock::time_point start, end;
  Value attributes = Value::object();  // name -> a string, number, bool or list of strings
  bool failed = false;
  std::string status_message;  // why it failed
};

// The span with `redactor`'s secrets masked in its name, attributes and status.
inline void redact_span(Span& span, const Redactor& redactor) {
  if (redactor.empty()) return;
  span.name = redactor.redact(span.name);
  span.status_message = redactor.redact(span.status_message);
  redact_value(span.attributes, redactor);
}

}  // namespace engine::trace
