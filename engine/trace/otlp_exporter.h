#pragma once
// Spans sent to an OpenTelemetry collector as OTLP over HTTP with JSON (`http/json`): the request body is an
// ExportTraceServiceRequest, POSTed to the traces endpoint by a background thread in batches. A run never waits for
// it: a span joins a bounded queue, and when the queue is full (a collector that is down, slow or refusing) the span
// is dropped and counted, never the run slowed. What is queued when the exporter ends is sent within a short bound.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/secret_set.h"
#include "engine/core/value.h"
#include "engine/net/http_client.h"
#include "engine/trace/span.h"
#include "engine/trace/wall_clock.h"
#include "engine/trace/span_builder.h"

namespace engine::trace {

struct OtlpSettings {
  std::string endpoint;              // the traces URL (`.../v1/traces`)
  std::vector<std::string> headers;  // "Name: value", from OTEL_EXPORTER_OTLP_HEADERS
  std::string service_name = "engine";
  Value resource_attributes = Value::object();  // from OTEL_RESOURCE_ATTRIBUTES
  size_t max_queue = 4096;                      // spans waiting; past it new ones are dropped
  size_t max_batch = 512;                       // spans a request
  std::chrono::milliseconds interval{500};      // how long a span may wait for its batch
  std::chrono::milliseconds flush_bound{2000};  // how long the end waits for the last batches
  net::HttpTimeouts timeouts{std::chrono::milliseconds(2000), std::chrono::milliseconds(5000),
                             std::chrono::milliseconds(5000)};
  // Prompts, replies, tool arguments and results on the spans: off unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_
  // CONTENT turns it on; each such attribute cut to OTEL_(SPAN_)ATTRIBUTE_VALUE_LENGTH_LIMIT bytes (64 KiB by default).
  SpanContent content;
  // Masks every request body and what the collector answers: the set the front end's workflows read their keys into,
  // with the header values added (a collector may quote one back in an error).
  std::shared_ptr<SecretSet> secrets = std::make_shared<SecretSet>();
};

// The settings from `--otlp URL` (a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT) or the standard variables, read
// through `env`; nullopt when neither names an endpoint. Throws Error "usage" for a URL that is not http(s), a
// header that is not `name=value`, a protocol other than http/json, or a content setting or length limit it cannot
// read. The header values are added to `secrets` (the front end's set; null: a set of the settings' own).
using Environment = std::function<const char*(const char*)>;
std::optional<OtlpSettings> otlp_settings(const std::string& flag, const Environment& env,
                                          std::shared_ptr<SecretSet> secrets = nullptr);

// The JSON body of an ExportTraceServiceRequest for `spans`, their steady-clock times placed on the wall by `clock`.
std::string otlp_request_json(const std::vector<Span>& spans, const OtlpSettings& settings, const WallClock& clock);

class OtlpExporter {
 public:
  explicit OtlpExporter(OtlpSettings settings);
  ~OtlpExporter();  // sends what is queued, within flush_bound, then stops
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  void add(Span&& span);  // never blocks on the collector
  // What spans sent here are to carry (the settings'): a SpanBuilder feeding this exporter is made with it.
  const SpanContent& content() const { return settings_.content; }

  struct Counts {
    size_t sent = 0;     // spans the collector took
    size_t dropped = 0;  // spans given up: a full queue, a refused or failed request, or the end's bound
    std::string last_error;  // why the last request failed (the status and the collector's words, masked)
  };
  Counts counts() const;
  // Waits (at most `bound`) until every span added so far has been sent or dropped: for tests and the end.
  void flush(std::chrono::milliseconds bound);

 private:
  void run();
  void send(std::vector<Span>& batch);

  OtlpSettings settings_;
  WallClock clock_;
  net::HttpClient http_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Span> queue_;
  size_t in_flight_ = 0;
  Counts counts_;
  bool stopping_ = false;
  bool urgent_ = false;   // flush(): send now rather than at the interval
  bool abandon_ = false;  // the end's bound passed: drop what is left
  Cancel ending_;         // abandons the request in flight when the bound passes
  std::thread thread_;
};

}  // namespace engine::trace
