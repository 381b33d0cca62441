// The OTLP/HTTP JSON exporter: its settings from the standard variables, the request body's shape, spans sent to a
// loopback collector with the configured headers and no key in them, and a collector that is down, slow or full
// costing dropped spans (counted), never a hang.
#include <catch2/catch.hpp>
#include <httplib.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/trace/otlp_exporter.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;
using namespace std::chrono_literals;
using engine::trace::OtlpSettings;
using engine::trace::Span;

namespace {

trace::Environment environment(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

Span sample_span(const std::string& name, bool failed = false) {
  Span s;
  s.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  s.span_id = "00f067aa0ba902b7";
  s.name = name;
  s.kind = trace::SpanKind::Client;
  s.start = std::chrono::steady_clock::now();
  s.end = s.start + 5ms;
  s.attributes = {{"gen_ai.operation.name", "chat"}, {"gen_ai.usage.input_tokens", 12}, {"gen_ai.request.stream", true},
                  {"gen_ai.response.finish_reasons", Value::array({"stop"})}};
  s.failed = failed;
  if (failed) s.status_message = "it failed";
  return s;
}

OtlpSettings settings_for(const std::string& base) {
  OtlpSettings s = *trace::otlp_settings(base, environment({}));
  s.interval = 20ms;
  s.flush_bound = 500ms;
  return s;
}

}  // namespace

TEST_CASE("otlp settings: the flag or the standard variables name the endpoint, headers and resource",
          "[trace][otlp]") {
  CHECK_FALSE(trace::otlp_settings("", environment({})).has_value());
  auto base = trace::otlp_settings("", environment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"}}));
  REQUIRE(base);
  CHECK(base->endpoint == "http://collector:4318/v1/traces");
  auto traces = trace::otlp_settings("", environment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"},
                                                      {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b/custom"}}));
  CHECK(traces->endpoint == "https://b/custom");
  auto flag = trace::otlp_settings("http://c:4318", environment({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b/x"}}));
  CHECK(flag->endpoint == "http://c:4318/v1/traces");
  auto full = trace::otlp_settings(
      "http://c:4318", environment({{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Basic%20c2VjcmV0LXZhbHVl, x-team = ai"},
                                    {"OTEL_SERVICE_NAME", "triage-bot"},
                                    {"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,service.name=ignored"}}));
  CHECK(full->headers == std::vector<std::string>{"Authorization: Basic c2VjcmV0LXZhbHVl", "x-team: ai"});
  CHECK(full->service_name == "triage-bot");
  CHECK(full->resource_attributes["deployment.environment"] == "prod");
  CHECK(full->resource_attributes["service.name"] == "triage-bot");
  CHECK(full->secrets->mask("Basic c2VjcmV0LXZhbHVl") == "***");

  auto refused = [](const std::string& flag, std::map<std::string, std::string> vars) {
    try {
      trace::otlp_settings(flag, environment(std::move(vars)));
    } catch (const Error& e) {
      return std::string(e.kind_name()) + ": " + e.message();
    }
    return std::string("accepted");
  };
  CHECK(refused("collector:4318", {}) == "usage: --otlp must be an http:// or https:// URL, got 'collector:4318'");
  CHECK(refused("http://c", {{"OTEL_EXPORTER_OTLP_HEADERS", "just-a-token"}}) ==
        "usage: OTEL_EXPORTER_OTLP_HEADERS holds 'just-a-token', which is not name=value");
  CHECK(refused("http://c", {{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}}) ==
        "usage: OTEL_EXPORTER_OTLP_PROTOCOL is 'grpc': the engine sends OTLP as http/json only (every OTLP/HTTP receiver takes it)");
  CHECK(refused("http://c", {{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"}}) == "accepted");
  CHECK(refused("http://c", {{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "yes"}}).rfind(
            "usage: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is 'yes'", 0) == 0);
  CHECK(refused("http://c", {{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "-5"}}) ==
        "usage: OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT is '-5': it must be a positive number of bytes");
}

TEST_CASE("otlp settings: prompts and replies go on spans only when the GenAI variable says so", "[trace][otlp]") {
  auto content = [](std::map<std::string, std::string> vars) {
    vars["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://c:4318";
    return trace::otlp_settings("", environment(std::move(vars)))->content;
  };
  CHECK_FALSE(content({}).enabled);
  CHECK(content({}).limit == 64 * 1024);
  for (const char* on : {"true", "TRUE", "span_only", "SPAN_AND_EVENT"})
    CHECK(content({{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", on}}).enabled);
  for (const char* off : {"false", "no_content", "event_only"})
    CHECK_FALSE(content({{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", off}}).enabled);
  CHECK(content({{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "4096"}}).limit == 4096);
  CHECK(content({{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "4096"}, {"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "100"}}).limit == 100);
}

TEST_CASE("otlp request: resource, scope and spans in OTLP's JSON, times as decimal nanoseconds", "[trace][otlp]") {
  OtlpSettings s = *trace::otlp_settings("http://c:4318", environment({{"OTEL_SERVICE_NAME", "svc"}}));
  Span ok = sample_span("chat gpt-4o");
  Span child = sample_span("execute_tool search", true);
  child.parent_id = "1111111111111111";
  auto steady_zero = ok.start - 1s;
  auto unix_zero = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  Value body = parse_json(trace::otlp_request_json({ok, child}, s, trace::WallClock(steady_zero, unix_zero)));
  const Value& resource = body["resourceSpans"][0];
  CHECK(resource["resource"]["attributes"][0] == Value{{"key", "service.name"}, {"value", {{"stringValue", "svc"}}}});
  const Value& scope = resource["scopeSpans"][0];
  CHECK(scope["scope"]["name"] == "engine");
  const Value& first = scope["spans"][0];
  CHECK(first["traceId"] == ok.trace_id.str());
  CHECK(first["kind"] == 3);
  CHECK_FALSE(first.contains("parentSpanId"));
  CHECK(first["startTimeUnixNano"] == "1800000001000000000");
  CHECK(first["endTimeUnixNano"] == "1800000001005000000");
  CHECK(first["status"] == Value{{"code", 0}});
  std::map<std::string, Value> attrs;
  for (const Value& a : first["attributes"]) attrs[a["key"]] = a["value"];
  CHECK(attrs["gen_ai.operation.name"] == Value{{"stringValue", "chat"}});
  CHECK(attrs["gen_ai.usage.input_tokens"] == Value{{"intValue", "12"}});
  CHECK(attrs["gen_ai.request.stream"] == Value{{"boolValue", true}});
  CHECK(attrs["gen_ai.response.finish_reasons"] ==
        Value{{"arrayValue", {{"values", Value::array({Value{{"stringValue", "stop"}}})}}}});
  const Value& second = scope["spans"][1];
  CHECK(second["parentSpanId"] == "1111111111111111");
  CHECK(second["status"] == Value{{"code", 2}, {"message", "it failed"}});
}

TEST_CASE("otlp exporter: spans reach a loopback collector in batches, with the headers and no key",
          "[trace][otlp]") {
  test::OtlpReceiver collector;
  const std::string key = "sk-otlp-secret-0123456789";
  OtlpSettings s = settings_for(collector.base_url());
  s.headers.push_back("Authorization: Bearer collector-token-1234");
  s.secrets->add(key);
  s.max_batch = 3;
  {
    trace::OtlpExporter exporter(s);
    for (int i = 0; i < 7; ++i) {
      Span span = sample_span("span " + std::to_string(i));
      span.attributes["error.message"] = "quoted " + key;
      exporter.add(std::move(span));
    }
    exporter.flush(5s);
    CHECK(exporter.counts().sent == 7);
    CHECK(exporter.counts().dropped == 0);
  }
  REQUIRE(collector.bodies().size() >= 3);  // 7 spans, at most 3 a request
  size_t spans = 0;
  for (const auto& body : collector.bodies()) {
    CHECK_FALSE(test::holds_piece_of_key(body, key));
    spans += parse_json(body)["resourceSpans"][0]["scopeSpans"][0]["spans"].size();
  }
  CHECK(spans == 7);
  CHECK(collector.authorizations().front() == "Bearer collector-token-1234");
}

TEST_CASE("otlp exporter: a collector that is down, refuses, or stalls costs dropped spans, never a hang",
          "[trace][otlp]") {
  SECTION("down") {
    OtlpSettings s = settings_for("http://127.0.0.1:" + std::to_string(test::free_port()));
    trace::OtlpExporter exporter(s);
    exporter.add(sample_span("lost"));
    exporter.flush(5s);
    CHECK(exporter.counts().dropped == 1);
    CHECK(exporter.counts().last_error.find("127.0.0.1") != std::string::npos);
  }
  SECTION("refusing, its words masked") {
    test::OtlpReceiver collector;
    collector.status = 400;
    OtlpSettings s = settings_for(collector.base_url());
    s.secrets->add("sk-otlp-secret-0123456789");
    trace::OtlpExporter exporter(s);
    exporter.add(sample_span("refused"));
    exporter.flush(5s);
    CHECK(exporter.counts().dropped == 1);
    CHECK(exporter.counts().last_error == "the collector answered 400: '{\"message\": \"refused for key ***\"}'");
    CHECK(exporter.counts().last_error.find("***") != std::string::npos);
  }
  SECTION("stalled past the end's bound, with a full queue") {
    test::OtlpReceiver collector;
    collector.hold();  // answers nothing until the test is over
    OtlpSettings s = settings_for(collector.base_url());
    s.max_queue = 2;
    s.max_batch = 1;
    {
      trace::OtlpExporter exporter(s);
      for (int i = 0; i < 6; ++i) exporter.add(sample_span("stalled"));
      CHECK(exporter.counts().dropped >= 3);  // the queue holds two (and one may be in flight)
    }
    // The end waited its bound and abandoned the request in flight: it came before any answer.
    CHECK(collector.answered() == 0);
  }
}
