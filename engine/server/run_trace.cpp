#include "engine/server/run_trace.h"

#include <chrono>

namespace engine::server {

RunTrace::RunTrace(trace::OtlpExporter* exporter, const HttpRequest& request, const Redactor& redactor,
                   EventSink* next)
    : exporter_(exporter), redactor_(json_text_redactor(redactor)), next_(next) {
  if (!exporter_) return;
  const std::string* given = request.header("traceparent");
  std::optional<TraceContext> caller = given ? parse_traceparent(*given) : std::nullopt;
  context_ = caller ? std::move(*caller) : TraceContext::new_trace();
  builder_.emplace(
      [this](trace::Span&& span) {
        trace::redact_span(span, redactor_);
        exporter_->add(std::move(span));
      },
      exporter_->content());
  both_.add(&*builder_);
  if (next_) both_.add(next_);
}

RunTrace::~RunTrace() {
  if (builder_) builder_->close_all(std::chrono::steady_clock::now());
}

EventSink* RunTrace::sink() { return builder_ ? &both_ : next_; }

}  // namespace engine::server
