// What OpenTelemetry export costs a run: the span builder alone per span, the builder feeding the exporter's queue
// per span (the run's thread's share; the exporter's thread sends), and a 3-step scripted workflow's run with no
// spans, with spans to a live collector, to one that is down, and to one that stalls: the collector must never
// show in the run's time. The collector is cpp-httplib on loopback, in process.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "engine/assemble/build_executor.h"
#include "engine/core/secret_set.h"
#include "engine/core/trace_context.h"
#include "engine/net/http_client.h"
#include "engine/spec/workflow_spec.h"
#include "engine/trace/otlp_exporter.h"
#include "engine/trace/span_builder.h"
#include "timing.h"

using namespace engine;
using engine::bench::median_us;

namespace {

class Collector {
 public:
  explicit Collector(int stall_ms = 0) {
    server_.set_tcp_nodelay(true);  // as real collectors do: no 40 ms Nagle/delayed-ACK stall per answer
    server_.Post("/v1/traces", [this, stall_ms](const httplib::Request&, httplib::Response& res) {
      if (stall_ms) std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms));
      ++requests_;
      res.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Collector() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::atomic<int> requests_{0};
  int port_ = 0;
  std::thread thread_;
};

int closed_port() {  // bound, then closed: a collector that is down
  httplib::Server s;
  return s.bind_to_any_port("127.0.0.1");
}

trace::OtlpSettings settings_for(const std::string& url) {
  return *trace::otlp_settings(url, [](const char*) -> const char* { return nullptr; });
}

// The events of one model call in an agent, as a run makes them.
void one_call(EventSink& sink, const std::string& run_id, int call) {
  EventPlace place{run_id, ""};
  sink.receive(Event{events::LlmStart{.call = call, .llm = "openai:gpt-4o", .temperature = 0.0}}, place);
  sink.receive(Event{events::LlmEnd{.call = call, .text = "ok", .finish_reason = "stop", .usage = {12, 3}}}, place);
}

void per_span() {
  const int spans = 20000, rounds = 21;
  auto feed = [&](EventSink& sink) {
    sink.receive(Event{events::ChainStart{.name = "a", .chain = ChainKind::Agent}}, EventPlace{"r", ""});
    for (int i = 0; i < spans; ++i) one_call(sink, "r", i);
    sink.receive(Event{events::ChainEnd{}}, EventPlace{"r", ""});
  };
  std::printf("cost per span on the run's thread (%d chat spans from their events, median of %d):\n", spans, rounds);
  struct Summary : NullSink {
    EventDetail detail() const override { return EventDetail::Summary; }
  } events_only;
  double events_us = median_us(rounds, [&] { feed(events_only); }) / spans;
  size_t kept = 0;
  double builder_us = median_us(rounds, [&] {
    trace::SpanBuilder builder([&](trace::Span&& s) { kept += s.name.size(); });
    feed(builder);
  }) / spans;
  Collector collector;
  trace::OtlpSettings s = settings_for(collector.url());
  s.max_queue = spans * 2;  // room for every span: the queue's cost, not its drops
  trace::OtlpExporter exporter(s);
  // The run's thread alone: the exporter's thread sends meanwhile, on the other core, and the flush after each
  // round (so rounds do not pile up) is not timed.
  std::vector<double> times;
  for (int r = 0; r < rounds; ++r) {
    trace::SpanBuilder builder([&](trace::Span&& span) { exporter.add(std::move(span)); });
    auto t0 = std::chrono::steady_clock::now();
    feed(builder);
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    exporter.flush(std::chrono::seconds(30));
  }
  std::sort(times.begin(), times.end());
  double queued_us = times[times.size() / 2] / spans;
  std::printf("  the events a span is made from (2)       %6.2f us   (made for any sink that listens)\n", events_us);
  std::printf("  + the span builder                       %6.2f us   (the builder's own: %.2f us)\n", builder_us,
              builder_us - events_us);
  std::printf("  + the exporter's queue                   %6.2f us   (builder and queue: %.2f us; target < 2 us)\n",
              queued_us, queued_us - events_us);
  std::printf("  spans sent %zu, dropped %zu\n", exporter.counts().sent, exporter.counts().dropped);

  // The exporter's thread: a request's body for a batch of 512 chat spans.
  std::vector<trace::Span> batch;
  trace::SpanBuilder builder([&](trace::Span&& span) { batch.push_back(std::move(span)); });
  feed(builder);
  batch.resize(512);
  size_t bytes = 0;
  double body_us = median_us(21, [&] {
    bytes = trace::otlp_request_json(batch, s, trace::WallClock()).size();
  });
  std::printf("  a request's body (512 spans, %zu bytes)  %7.3f us per span   (the exporter's thread)\n", bytes,
              body_us / 512);
  {
    std::string body = trace::otlp_request_json(batch, s, trace::WallClock());
    net::HttpClient http;
    net::HttpRequest req;
    req.url = s.endpoint;
    req.headers = {"Content-Type: application/json"};
    req.body = body;
    req.timeouts = s.timeouts;
    double one = median_us(21, [&] { (void)http.send(req, nullptr, nullptr); });
    std::printf("  one request of that body, HttpClient      %9.1f us\n", one);
    SecretSet secrets;  // a provider's key and a collector's token, as a front end's set holds them
    secrets.add("sk-proj-Zq8v2LmN4xR7tY1wK9pB0123456789");
    secrets.add("Bearer collector-token-0123456789");
    double redact = median_us(21, [&] { (void)secrets.mask(body); });
    std::printf("  the body masked by a set of two keys      %9.1f us\n", redact);
  }
  double sent_us = median_us(21, [&] {
    for (const trace::Span& span : batch) exporter.add(trace::Span(span));
    exporter.flush(std::chrono::seconds(10));
  });
  std::printf("  a batch of 512 queued, sent and taken    %7.3f us per span   (both threads, the collector's too)\n",
              sent_us / 512);
}

void run_time() {
  auto executor = assemble::build_executor(spec::parse_workflow(R"(
inputs:
  topic: {default: tides}
llm:
  provider: scripted
  model: bench
  scripted:
    rules:
      - {match: '(?s).', reply: 'ok'}
steps:
  plan: {kind: llm, prompt: 'Plan a note on {{ inputs.topic }}'}
  facts: {kind: llm, prompt: 'Facts for {{ steps.plan.output }}'}
  write: {kind: llm, prompt: 'Write {{ steps.facts.output }}'}
)", "bench.yaml", "."));
  Value inputs = executor->resolve_inputs(Value::object());
  const int rounds = 401;
  std::printf("a 3-step scripted workflow's run (7 spans), median of %d:\n", rounds);
  NullSink none;
  double plain = median_us(rounds, [&] { (void)executor->run(inputs, none); });
  std::printf("  no spans                                %8.1f us\n", plain);
  Collector live, stalled(5000);
  struct Case {
    const char* label;
    std::string url;
  };
  for (const Case& c : {Case{"spans to a live collector", live.url()},
                        Case{"spans to a collector that is down", "http://127.0.0.1:" + std::to_string(closed_port())},
                        Case{"spans to a collector that stalls 5 s", stalled.url()}}) {
    trace::OtlpSettings s = settings_for(c.url);
    s.flush_bound = std::chrono::milliseconds(200);
    trace::OtlpExporter exporter(s);
    trace::SpanBuilder builder([&](trace::Span&& span) { exporter.add(std::move(span)); });
    double us = median_us(rounds, [&] {
      TraceContext trace = TraceContext::new_trace();
      (void)executor->run(inputs, builder, agent::RunOptions{.trace = &trace});
    });
    std::printf("  %-40s%8.1f us   %+5.1f%%   (sent %zu, dropped %zu so far)\n", c.label, us, 100 * (us - plain) / plain,
                exporter.counts().sent, exporter.counts().dropped);
  }
}

}  // namespace

int main() {
  per_span();
  run_time();
  return 0;
}
