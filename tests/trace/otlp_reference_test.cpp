// The engine's OTLP/HTTP JSON beside what OpenTelemetry's official JS SDK sends for the same spans
// (tests/peers/otel_reference.mjs): every field the engine writes is one the SDK writes, of the same JSON type, so
// a receiver that takes the SDK's takes the engine's.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "engine/core/json_parse.h"
#include "engine/trace/otlp_exporter.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;
using namespace std::chrono_literals;

namespace {

// Where each JSON field sits and its type, for every field under `v`: "resourceSpans[].scopeSpans[].spans[].kind":
// "number". Lists are walked item by item under one "[]" name.
void field_types(const Value& v, const std::string& at, std::map<std::string, std::string>& out) {
  if (v.is_object()) {
    for (const auto& [key, item] : v.items()) field_types(item, at + "." + key, out);
    out[at] = "object";
  } else if (v.is_array()) {
    for (const Value& item : v) field_types(item, at + "[]", out);
    out[at] = "array";
  } else {
    out[at] = v.is_string() ? "string" : v.is_boolean() ? "boolean" : v.is_number() ? "number" : "null";
  }
}

trace::Span reference_span(const std::string& name, trace::SpanKind kind) {
  trace::Span s;
  s.trace_id = "248d885d1d222624949d9b5a12ba9536";
  s.span_id = kind == trace::SpanKind::Client ? "a4fb04454464d1e4" : "2196a3e32be6bee4";
  s.name = name;
  s.kind = kind;
  s.start = std::chrono::steady_clock::now();
  s.end = s.start + 2ms;
  return s;
}

}  // namespace

TEST_CASE("otlp reference: the engine's request has the official JS SDK's shape", "[trace][otlp][peers]") {
  test::require_npm_peers();
  test::OtlpReceiver sdk_receiver, engine_receiver;
  test::CommandResult r = test::run_command("node " + test::source_path("tests/peers/otel_reference.mjs") + " " +
                                            sdk_receiver.base_url() + "/v1/traces");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);

  // The same two spans from the engine's exporter.
  trace::Span root = reference_span("invoke_workflow triage", trace::SpanKind::Internal);
  root.attributes = {{"gen_ai.operation.name", "invoke_workflow"}, {"gen_ai.usage.input_tokens", 12}};
  trace::Span chat = reference_span("chat gpt-4o", trace::SpanKind::Client);
  chat.parent_id = root.span_id;
  chat.attributes = {{"gen_ai.operation.name", "chat"}, {"gen_ai.request.stream", true},
                     {"gen_ai.request.temperature", 0.5}, {"gen_ai.response.finish_reasons", Value::array({"stop"})},
                     {"error.type", "llm.http_error"}};
  chat.failed = true;
  chat.status_message = "it failed";
  {
    auto settings = trace::otlp_settings(engine_receiver.base_url(), [](const char*) -> const char* { return nullptr; });
    trace::OtlpExporter exporter(*settings);
    exporter.add(std::move(chat));
    exporter.add(std::move(root));
    exporter.flush(5s);
    REQUIRE(exporter.counts().sent == 2);
  }

  std::map<std::string, std::string> sdk, ours;
  for (const std::string& body : sdk_receiver.bodies()) field_types(parse_json(body), "", sdk);
  for (const std::string& body : engine_receiver.bodies()) field_types(parse_json(body), "", ours);
  REQUIRE(sdk.size() > 20);
  CHECK(sdk_receiver.content_type() == engine_receiver.content_type());
  for (const auto& [field, type] : ours) {
    INFO(field);
    REQUIRE(sdk.count(field) == 1);
    // An int64 is a decimal string in protobuf's JSON (what the engine writes); the SDK writes a plain number for
    // an integer attribute, which receivers take too. Every other field has the SDK's type.
    if (field.ends_with(".intValue")) CHECK(type == "string");
    else CHECK(sdk.at(field) == type);
  }
  // What the SDK writes that the engine leaves out is what it has none of: events, links, and their counts.
  std::set<std::string> missing;
  for (const auto& [field, type] : sdk)
    if (!ours.count(field)) missing.insert(field.substr(field.rfind('.') + 1));
  CHECK(missing == std::set<std::string>{"droppedAttributesCount", "droppedEventsCount", "droppedLinksCount", "events",
                                         "links"});
  // The same spans read back the same, whichever request came first (the SDK sends each span on its own).
  std::map<std::string, Value> sdk_spans, our_spans;
  for (const Value& span : sdk_receiver.spans()) sdk_spans[span["name"].get<std::string>()] = span;
  for (const Value& span : engine_receiver.spans()) our_spans[span["name"].get<std::string>()] = span;
  REQUIRE(sdk_spans.size() == 2);
  REQUIRE(our_spans.size() == 2);
  for (const auto& [name, sdk_span] : sdk_spans) {
    INFO(name);
    REQUIRE(our_spans.count(name) == 1);
    const Value& ours_span = our_spans[name];
    CHECK(ours_span["kind"] == sdk_span["kind"]);
    CHECK(ours_span["spanId"].get<std::string>().size() == sdk_span["spanId"].get<std::string>().size());
    CHECK(ours_span["status"] == sdk_span["status"]);
    CHECK(ours_span["flags"] == sdk_span["flags"]);
    CHECK(ours_span.contains("parentSpanId") == sdk_span.contains("parentSpanId"));
  }
}
