#include "engine/trace/otlp_exporter.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::trace {
namespace {

const char* const kTracesPath = "/v1/traces";
// OTLP's span flags: the W3C trace flags in the low byte, then whether the parent's remoteness is known, and is.
constexpr int kSampled = 0x01, kHasIsRemote = 0x100, kIsRemote = 0x200;

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) && hex(s[i + 2])) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// `k=v,k2=v2` (W3C baggage style, values percent-encoded), as OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_RESOURCE_ATTRIBUTES write them.
std::vector<std::pair<std::string, std::string>> key_values(std::string_view text, const char* variable) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t start = 0; start <= text.size();) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || trim(item.substr(0, eq)).empty())
      throw Error(ErrorKind::Usage, std::string(variable) + " holds '" + printable_excerpt(item.substr(0, eq), 40) +
                               "', which is not name=value");
    out.emplace_back(std::string(trim(item.substr(0, eq))), percent_decoded(trim(item.substr(eq + 1))));
  }
  return out;
}

std::string checked_url(std::string url, const char* from) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    throw Error(ErrorKind::Usage, std::string(from) + " must be an http:// or https:// URL, got '" + printable_excerpt(url, 80) + "'");
  return url;
}

std::string with_traces_path(std::string base) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + kTracesPath;
}

Value attribute_value(const Value& v) {
  if (v.is_string()) return {{"stringValue", v}};
  if (v.is_boolean()) return {{"boolValue", v}};
  if (v.is_number_integer()) return {{"intValue", std::to_string(v.get<long long>())}};  // int64 as a decimal string
  if (v.is_number()) return {{"doubleValue", v}};
  if (v.is_array()) {
    Value values = Value::array();
    for (const Value& e : v) values.push_back(attribute_value(e));
    return {{"arrayValue", {{"values", std::move(values)}}}};
  }
  return {{"stringValue", to_json_text(v)}};
}

Value attributes(const Value& object) {
  Value out = Value::array();
  for (const auto& [key, value] : object.items()) out.push_back({{"key", key}, {"value", attribute_value(value)}});
  return out;
}

// A span's attributes as OTLP's JSON KeyValue list.
void append_attributes(std::string& out, const Attributes& list) {
  out += '[';
  bool first = true;
  for (const auto& item : list) {
    out += first ? R"({"key":)" : R"(,{"key":)";
    first = false;
    append_json_string(out, item.name);
    out += R"(,"value":)";
    if (auto* text = std::get_if<std::string>(&item.value)) {
      out += R"({"stringValue":)";
      append_json_string(out, *text);
      out += '}';
    } else if (auto* flag = std::get_if<bool>(&item.value)) {
      out += *flag ? R"({"boolValue":true})" : R"({"boolValue":false})";
    } else if (auto* n = std::get_if<int64_t>(&item.value)) {
      out += R"({"intValue":")" + std::to_string(*n) + "\"}";  // int64 as a decimal string
    } else {
      append_json_text(out, attribute_value(attribute_json(item.value)));  // a number, a list
    }
    out += '}';
  }
  out += ']';
}

}  // namespace

// Whether spans carry content, as the GenAI instrumentations of OpenTelemetry read their variable (the engine has
// no log events, so event_only carries none), and how long such an attribute may be.
static SpanContent content_settings(const std::function<std::string(const char*)>& variable) {
  SpanContent content;
  std::string capture = variable("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT");
  std::transform(capture.begin(), capture.end(), capture.begin(), [](unsigned char c) { return std::tolower(c); });
  if (capture == "true" || capture == "span_only" || capture == "span_and_event") content.enabled = true;
  else if (!capture.empty() && capture != "false" && capture != "no_content" && capture != "event_only")
    throw Error(ErrorKind::Usage, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is '" + printable_excerpt(capture, 40) +
                             "': use true or false (or span_only, span_and_event, event_only, no_content)");
  for (const char* name : {"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"}) {
    std::string limit = variable(name);
    if (limit.empty()) continue;
    size_t n = 0;
    auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), n);
    if (ec != std::errc() || end != limit.data() + limit.size() || n == 0)
      throw Error(ErrorKind::Usage, std::string(name) + " is '" + printable_excerpt(limit, 40) + "': it must be a positive number of bytes");
    content.limit = n;
    break;
  }
  return content;
}

std::optional<OtlpSettings> otlp_settings(const std::string& flag, const Environment& env,
                                          std::shared_ptr<SecretSet> secrets) {
  auto variable = [&](const char* name) -> std::string {
    const char* v = env(name);
    return v ? std::string(trim(v)) : std::string();
  };
  OtlpSettings s;
  if (!flag.empty()) s.endpoint = with_traces_path(checked_url(flag, "--otlp"));
  else if (std::string traces = variable("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); !traces.empty())
    s.endpoint = checked_url(traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  else if (std::string base = variable("OTEL_EXPORTER_OTLP_ENDPOINT"); !base.empty())
    s.endpoint = with_traces_path(checked_url(base, "OTEL_EXPORTER_OTLP_ENDPOINT"));
  else
    return std::nullopt;
  for (const char* name : {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"})
    if (std::string protocol = variable(name); !protocol.empty()) {
      if (protocol != "http/json")
        throw Error(ErrorKind::Usage, std::string(name) + " is '" + printable_excerpt(protocol, 40) +
                                 "': the engine sends OTLP as http/json only (every OTLP/HTTP receiver takes it)");
      break;
    }
  if (secrets) s.secrets = std::move(secrets);
  std::string headers_from = variable("OTEL_EXPORTER_OTLP_TRACES_HEADERS").empty() ? "OTEL_EXPORTER_OTLP_HEADERS"
                                                                                  : "OTEL_EXPORTER_OTLP_TRACES_HEADERS";
  for (auto& [name, value] : key_values(variable(headers_from.c_str()), headers_from.c_str())) {
    s.headers.push_back(name + ": " + value);
    s.secrets->add(value);  // an Authorization or API key header: never in an output
  }
  for (auto& [name, value] : key_values(variable("OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES"))
    s.resource_attributes[name] = value;
  if (std::string service = variable("OTEL_SERVICE_NAME"); !service.empty()) s.service_name = service;
  else if (s.resource_attributes.contains("service.name")) s.service_name = s.resource_attributes["service.name"];
  s.resource_attributes["service.name"] = s.service_name;
  s.content = content_settings(variable);
  return s;
}

std::string otlp_request_json(const std::vector<Span>& spans, const OtlpSettings& settings, const WallClock& clock) {
  // Written straight out rather than built as a JSON tree: the exporter's thread writes every span of every run.
  std::string out;
  out.reserve(256 + spans.size() * 640);
  out += R"({"resourceSpans":[{"resource":{"attributes":)";
  append_json_text(out, attributes(settings.resource_attributes));
  out += R"(},"scopeSpans":[{"scope":{"name":"engine","version":"0.1.0"},"spans":[)";
  auto field = [&](const char* name) { out.append(1, '"').append(name).append("\":"); };
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& span = spans[i];
    out += i == 0 ? "{" : ",{";
    field("traceId");
    append_json_string(out, span.trace_id.view());
    out += ',';
    field("spanId");
    append_json_string(out, span.span_id.view());
    if (!span.parent_id.empty()) {
      out += ',';
      field("parentSpanId");
      append_json_string(out, span.parent_id.view());
    }
    // W3C flags (sampled) and whether the parent is known to be remote, as OTLP 1.x's span flags hold them.
    out += ',';
    field("flags");
    out += std::to_string(span.remote_parent ? kSampled | kHasIsRemote | kIsRemote : kSampled | kHasIsRemote);
    out += ',';
    field("name");
    append_json_string(out, span.name);
    out += ',';
    field("kind");
    out += std::to_string(static_cast<int>(span.kind));
    out += ',';
    field("startTimeUnixNano");
    append_json_string(out, std::to_string(clock.unix_nanos(span.start)));
    out += ',';
    field("endTimeUnixNano");
    append_json_string(out, std::to_string(clock.unix_nanos(span.end)));
    out += ',';
    field("attributes");
    append_attributes(out, span.attributes);
    out += ',';
    field("status");
    if (span.failed) {
      out += R"({"code":2,"message":)";
      append_json_string(out, span.status_message);
      out += '}';
    } else {
      out += R"({"code":0})";
    }
    out += '}';
  }
  out += "]}]}]}";
  return out;
}


OtlpExporter::OtlpExporter(OtlpSettings settings)
    : settings_(std::move(settings)), thread_([this] { run(); }) {}

OtlpExporter::~OtlpExporter() {
  bool done;
  {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    done = idle_.wait_for(lock, settings_.flush_bound, [&] { return queue_.empty() && in_flight_ == 0; });
    if (!done) abandon_ = true;
  }
  if (!done) ending_.cancel();
  wake_.notify_all();
  thread_.join();
}

void OtlpExporter::add(Span&& span) {
  std::lock_guard lock(mutex_);
  if (queue_.size() >= settings_.max_queue) {
    ++counts_.dropped;
    return;
  }
  queue_.push_back(std::move(span));
  if (queue_.size() >= settings_.max_batch) wake_.notify_all();
}

OtlpExporter::Counts OtlpExporter::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

void OtlpExporter::flush(std::chrono::milliseconds bound) {
  std::unique_lock lock(mutex_);
  urgent_ = true;
  wake_.notify_all();
  idle_.wait_for(lock, bound, [&] { return queue_.empty() && in_flight_ == 0; });
}

void OtlpExporter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, settings_.interval,
                   [&] { return stopping_ || urgent_ || abandon_ || queue_.size() >= settings_.max_batch; });
    if (abandon_) {
      counts_.dropped += queue_.size();
      queue_.clear();
      idle_.notify_all();
      return;
    }
    if (queue_.empty()) {
      urgent_ = false;
      idle_.notify_all();
      if (stopping_) return;
      continue;
    }
    size_t n = std::min(queue_.size(), settings_.max_batch);
    std::vector<Span> batch(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + n));
    queue_.erase(queue_.begin(), queue_.begin() + n);
    in_flight_ = n;
    lock.unlock();
    send(batch);
    lock.lock();
    in_flight_ = 0;
    idle_.notify_all();
  }
}

void OtlpExporter::send(std::vector<Span>& batch) {
  net::HttpRequest request;
  request.url = settings_.endpoint;
  request.headers = settings_.headers;
  request.headers.push_back("Content-Type: application/json");
  request.body = settings_.secrets->mask(otlp_request_json(batch, settings_, clock_));
  request.timeouts = settings_.timeouts;
  request.max_response_bytes = size_t{1} << 20;
  std::string failure;
  // A collector that is busy (429, 502, 503, 504) gets one more try after a short wait; nothing else is retried.
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      net::HttpResponse r = http_.send(request, nullptr, &ending_);
      if (r.status >= 200 && r.status < 300) {
        std::lock_guard lock(mutex_);
        counts_.sent += batch.size();
        return;
      }
      failure = "the collector answered " + std::to_string(r.status) + ": " + quote_excerpt(settings_.secrets->mask(r.body), 200);
      bool busy = r.status == 429 || r.status == 502 || r.status == 503 || r.status == 504;
      if (!busy || !ending_.sleep_for(std::chrono::milliseconds(250))) break;
    } catch (const Error& e) {
      failure = settings_.secrets->mask(e.message());
      break;
    }
  }
  std::lock_guard lock(mutex_);
  counts_.dropped += batch.size();
  counts_.last_error = std::move(failure);
}

}  // namespace engine::trace
