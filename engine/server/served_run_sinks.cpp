#include "engine/server/served_run_sinks.h"

#include <chrono>

namespace engine::server {

ServedRunSinks::ServedRunSinks(const RunObservers& observers, const std::string* traceparent, const Redactor& redactor,
                               trace::RunSource source, EventSink* next)
    : exporter_(observers.spans), redactor_(json_text_redactor(redactor)) {
  if (next) all_.add(next);
  if (observers.store) {
    recorder_.emplace(*observers.store, std::move(source), redactor);
    all_.add(&*recorder_);
  }
  if (!exporter_) return;
  std::optional<TraceContext> caller = traceparent ? parse_traceparent(*traceparent) : std::nullopt;
  context_ = caller ? std::move(*caller) : TraceContext::new_trace();
  builder_.emplace(
      [this](trace::Span&& span) {
        trace::redact_span(span, redactor_);
        exporter_->add(std::move(span));
      },
      exporter_->content());
  all_.add(&*builder_);
}

ServedRunSinks::~ServedRunSinks() {
  if (builder_) builder_->close_all(std::chrono::steady_clock::now());
}

}  // namespace engine::server
