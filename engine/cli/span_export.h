#pragma once
// A command's runs as OpenTelemetry spans, when `--otlp URL` or the standard OTEL_EXPORTER_OTLP_* variables name a
// collector: a SpanBuilder over the runs' events feeding an OtlpExporter. At the end, spans still open are ended,
// what is queued is sent within the exporter's bound, and spans that could not be sent are reported on stderr.
#include <optional>
#include <string>

#include "engine/core/event.h"
#include "engine/core/trace_context.h"
#include "engine/trace/otlp_exporter.h"
#include "engine/trace/span_builder.h"

namespace engine::cli {

class SpanExport {
 public:
  // Throws Error "usage" for settings that do not hold (otlp_exporter.h). The collector's headers join the console's
  // secrets, which every request to it masks.
  explicit SpanExport(const std::string& otlp_flag);
  ~SpanExport();
  SpanExport(const SpanExport&) = delete;
  SpanExport& operator=(const SpanExport&) = delete;

  // Closes what is open and sends what is queued (within the exporter's bound): how many spans were sent and
  // dropped. The end then warns of nothing more.
  trace::OtlpExporter::Counts finish();
  // The sink to add to the runs' events; null when no collector is named.
  EventSink* sink() { return builder_ ? &*builder_ : nullptr; }
  // A new trace for a run when spans are sent (the run then sends traceparent with its model requests), else none.
  std::optional<TraceContext> new_trace() const {
    return builder_ ? std::optional(TraceContext::new_trace()) : std::nullopt;
  }

 private:
  std::optional<trace::OtlpExporter> exporter_;
  std::optional<trace::SpanBuilder> builder_;
  bool finished_ = false;
};

// "engine: warning: 3 spans could not be sent to the OpenTelemetry collector (...)" on stderr, when any were not.
void warn_of_dropped_spans(const trace::OtlpExporter::Counts& counts);

}  // namespace engine::cli
