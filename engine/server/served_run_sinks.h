#pragma once
// Where a served request's runs (an HTTP request's, an MCP tool call's) report besides the response: the span
// builder, when the server sends spans (a SERVER span for the request, in the caller's trace under its span when the
// request carries a W3C traceparent, a new trace otherwise; the runs' spans under it; their model requests send
// theirs on), and the run store, when the server records runs. Both mask where their bytes leave: the exporter its
// requests, the recorder its records (core/secret_set.h). One per request; a batch's runs share it (one trace, each
// run a child of the caller's span, each recorded).
#include <optional>
#include <string>

#include "engine/core/event.h"
#include "engine/core/secret_set.h"
#include "engine/core/trace_context.h"
#include "engine/server/http_message.h"
#include "engine/store/run_store.h"
#include "engine/store/run_writer.h"
#include "engine/trace/otlp_exporter.h"
#include "engine/trace/run_recorder.h"
#include "engine/trace/span_builder.h"

namespace engine::server {

// What the server has for its runs' events: either may be null. `secrets`: the server's, which the records are
// masked by.
struct ServerObservers {
  trace::OtlpExporter* spans = nullptr;
  store::RunWriter* store = nullptr;  // the run store's writer
  std::shared_ptr<const SecretSet> secrets = std::make_shared<const SecretSet>();
};

// The SERVER span a request's runs sit under, named as OpenTelemetry's conventions name one: HTTP's
// (`POST /v1/workflows/{name}/invoke`, with http.request.method, http.route, url.path and the response's status) or
// MCP's (`tools/call calculator`, with mcp.method.name and gen_ai.tool.name).
struct ServerSpan {
  std::string name;
  trace::Attributes attributes;
};

// An HTTP request's: its route is its path with a workflow's name as `{name}`.
ServerSpan http_server_span(const HttpRequest& request);

class ServedRunSinks {
 public:
  // `traceparent`: the caller's W3C trace context, or null. `source`: the command and workflow file the store
  // records. `server`: the request's span, which the runs' spans are children of. `next`: another sink for the
  // runs' events (a stream's), or null.
  ServedRunSinks(const ServerObservers& observers, const std::string* traceparent, trace::RunSource source,
                 ServerSpan server, EventSink* next = nullptr);
  // A request of `engine serve`: its traceparent header, recorded as "serve".
  ServedRunSinks(const ServerObservers& observers, const HttpRequest& request, const std::string& file,
                 EventSink* next = nullptr)
      : ServedRunSinks(observers, request.header("traceparent"), trace::RunSource{"serve", file},
                       observers.spans ? http_server_span(request) : ServerSpan{}, next) {}  // named only when sent
  ~ServedRunSinks();  // ends the spans a cut run left open, then the request's

  // The response's HTTP status, for the request's span (a 5xx marks it failed).
  void respond_with(int status) { status_ = status; }
  // The request failed though its transport did not (an MCP tool call answered isError): its span is marked failed
  // with this error.type.
  void fail_with(std::string error_type) { error_type_ = std::move(error_type); }
  ServedRunSinks(const ServedRunSinks&) = delete;
  ServedRunSinks& operator=(const ServedRunSinks&) = delete;

  // The runs' options take it: null when the runs are not traced (no collector and no traceparent).
  const TraceContext* trace() const { return context_ ? &*context_ : nullptr; }
  // Where the runs' events go: `next`, the span builder, the recorder; null when none.
  EventSink* sink() { return all_.empty() ? nullptr : &all_; }

 private:
  trace::OtlpExporter* exporter_;
  std::optional<TraceContext> context_;
  std::optional<trace::Span> server_;  // the request's span, sent when the sinks go
  int status_ = 0;
  std::string error_type_;
  std::optional<trace::SpanBuilder> builder_;
  std::optional<trace::RunRecorder> recorder_;
  EventFanout all_;
};

}  // namespace engine::server
