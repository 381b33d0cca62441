#include "engine/cli/span_export.h"

#include <cstdlib>
#include <iostream>

#include "engine/cli/console_mask.h"

namespace engine::cli {

SpanExport::SpanExport(const std::string& otlp_flag) {
  std::optional<trace::OtlpSettings> settings = trace::otlp_settings(
      otlp_flag, [](const char* name) { return std::getenv(name); }, console_secrets());
  if (!settings) return;
  trace::SpanContent content = settings->content;
  exporter_.emplace(std::move(*settings));
  builder_.emplace([this](trace::Span&& span) { exporter_->add(std::move(span)); }, content);
}

trace::OtlpExporter::Counts SpanExport::finish() {
  if (!exporter_) return {};
  builder_->close_all(std::chrono::steady_clock::now());  // a run cut short still shows what it did
  exporter_->flush(std::chrono::seconds(2));
  finished_ = true;
  return exporter_->counts();
}

SpanExport::~SpanExport() {
  if (!exporter_ || finished_) return;
  warn_of_dropped_spans(finish());
}

void warn_of_dropped_spans(const trace::OtlpExporter::Counts& counts) {
  if (counts.dropped == 0) return;
  std::cerr << "engine: warning: " << counts.dropped << " span" << (counts.dropped == 1 ? "" : "s")
            << " could not be sent to the OpenTelemetry collector"
            << (counts.last_error.empty() ? std::string() : " (" + counts.last_error + ")") << std::endl;
}

}  // namespace engine::cli
