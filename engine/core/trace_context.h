#pragma once
// Where a run's spans belong, as W3C Trace Context has it: the trace, and the caller's span the run joins. A run that
// is traced (its spans recorded or exported) names its trace in its chain_start and sends a `traceparent` naming the
// model call's span with each model request, so a provider's own tracing and the caller's trace join the engine's.
#include <optional>
#include <string>
#include <string_view>

namespace engine {

struct TraceContext {
  std::string trace_id;        // 32 lowercase hex digits, not all zero
  std::string parent_span_id;  // 16 lowercase hex digits: the caller's span; empty for a trace of the run's own
  bool sampled = true;         // the caller's choice (its flags): an unsampled trace is propagated, not recorded
  bool parent_local = false;   // the parent is a span of this process (a served request's SERVER span), not remote

  static TraceContext new_trace();  // a trace of its own, with a random id
};

// Random ids as W3C Trace Context wants them: lowercase hex, never all zero.
std::string new_trace_id();  // 32 digits
std::string new_span_id();   // 16 digits

// The context in a `traceparent` header (version 00, or a later version read as 00 reads it), or none for a header
// that is not one: the specification says to ignore such a header and start a trace of one's own.
std::optional<TraceContext> parse_traceparent(std::string_view header);
// "00-<trace id>-<span id>-01" (or "-00" when not sampled): a call made from the span `span_id` of trace `trace_id`.
std::string format_traceparent(std::string_view trace_id, std::string_view span_id, bool sampled = true);

}  // namespace engine
