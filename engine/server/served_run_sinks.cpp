#include "engine/server/served_run_sinks.h"

#include <chrono>

namespace engine::server {

ServerSpan http_server_span(const HttpRequest& request) {
  // /v1/workflows/NAME/ACTION: the route names the workflow's place, not the workflow (the conventions keep a
  // route's cardinality low).
  std::string route = request.path;
  const std::string prefix = "/v1/workflows/";
  if (route.starts_with(prefix)) {
    size_t end = route.find('/', prefix.size());
    if (end != std::string::npos) route = prefix + "{name}" + route.substr(end);
  }
  ServerSpan span{request.method + " " + route, {}};
  span.attributes.set("http.request.method", request.method);
  span.attributes.set("http.route", route);
  span.attributes.set("url.path", request.path);
  return span;
}

ServedRunSinks::ServedRunSinks(const ServerObservers& observers, const std::string* traceparent, trace::RunSource source,
                               ServerSpan server, EventSink* next)
    : exporter_(observers.spans) {
  if (next) all_.add(next);
  if (observers.store) {
    recorder_.emplace(*observers.store, std::move(source), observers.secrets);
    all_.add(&*recorder_);
  }
  std::optional<TraceContext> caller = traceparent ? parse_traceparent(*traceparent) : std::nullopt;
  if (!exporter_) {
    // No spans are sent, yet the caller's trace goes on: the runs' model requests carry it, each under an id of its
    // own, as a span that is not recorded does in OpenTelemetry's SDKs.
    context_ = std::move(caller);
    return;
  }
  context_ = caller ? std::move(*caller) : TraceContext::new_trace();
  if (context_->sampled) {
    trace::Span span;
    span.trace_id = context_->trace_id;
    span.span_id = new_span_id();
    span.parent_id = context_->parent_span_id;
    span.remote_parent = !span.parent_id.empty();
    span.name = std::move(server.name);
    span.kind = trace::SpanKind::Server;
    span.start = std::chrono::steady_clock::now();
    span.attributes = std::move(server.attributes);
    context_->parent_span_id = span.span_id.str();
    context_->parent_local = true;
    server_ = std::move(span);
  }
  builder_.emplace(*exporter_);
  all_.add(&*builder_);
}

ServedRunSinks::~ServedRunSinks() {
  auto now = std::chrono::steady_clock::now();
  if (builder_) builder_->close_all(now);
  if (!server_) return;
  server_->end = now;
  if (status_ != 0) {
    server_->attributes.set("http.response.status_code", static_cast<int64_t>(status_));
    if (status_ >= 500) {
      server_->failed = true;
      server_->attributes.set("error.type", std::to_string(status_));
    }
  }
  if (!error_type_.empty()) {
    server_->failed = true;
    server_->attributes.set("error.type", error_type_);
  }
  exporter_->add(std::move(*server_));
}

}  // namespace engine::server
