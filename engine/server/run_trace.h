#pragma once
// A served request's runs as spans, when the server sends spans to a collector: the runs join the caller's trace
// under its span when the request carries a W3C traceparent (a new trace otherwise), their model requests send
// theirs on, and their spans, masked with the workflow's keys, go to the server's exporter. One per request; a
// batch's runs share it (one trace, each run a child of the caller's span).
#include <optional>

#include "engine/core/event.h"
#include "engine/core/redact.h"
#include "engine/core/trace_context.h"
#include "engine/server/http_message.h"
#include "engine/trace/otlp_exporter.h"
#include "engine/trace/span_builder.h"

namespace engine::server {

class RunTrace {
 public:
  // `exporter` null: the server sends no spans, and the runs are not traced. `next`: another sink for the runs'
  // events (a stream's), or null.
  RunTrace(trace::OtlpExporter* exporter, const HttpRequest& request, const Redactor& redactor,
           EventSink* next = nullptr);
  ~RunTrace();  // ends what a cut run left open
  RunTrace(const RunTrace&) = delete;
  RunTrace& operator=(const RunTrace&) = delete;

  // The runs' options take it: null when not traced.
  const TraceContext* context() const { return context_ ? &*context_ : nullptr; }
  // Where the runs' events go: `next` and the span builder; null when neither.
  EventSink* sink();

 private:
  trace::OtlpExporter* exporter_;
  Redactor redactor_;  // the workflow's keys, as written and JSON-escaped (content attributes are JSON text)
  std::optional<TraceContext> context_;
  std::optional<trace::SpanBuilder> builder_;
  EventSink* next_;
  EventFanout both_;
};

}  // namespace engine::server
