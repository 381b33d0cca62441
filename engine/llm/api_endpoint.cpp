#include "engine/llm/api_endpoint.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include "engine/core/json_parse.h"
#include "engine/core/text.h"

namespace engine::llm {
namespace {

bool retryable_status(long status) { return status == 408 || status == 409 || status == 429 || status >= 500; }

// A server's wait in `scale` ms units, when it is a plain finite number of them from 0 to `cap`. Anything else (a
// date, `inf`, `1e300`, `NaN`, past the cap) falls back to the engine's own backoff, as the official SDKs do: a
// hostile or broken server must not park a run for the cap on every retry.
std::optional<std::chrono::milliseconds> parse_ms(const std::string* text, double scale, std::chrono::milliseconds cap) {
  if (!text) return std::nullopt;
  std::string_view t = trim(*text);
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  v *= scale;
  if (!(v >= 0) || v > static_cast<double>(cap.count())) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long>(v));
}

// Every string the server chose, in the answer the run will use, with the key masked.
void redact_response(LlmResponse& r, const Redactor& redactor) {
  if (redactor.empty()) return;
  r.text = redactor.redact(r.text);
  for (auto& c : r.tool_calls) {
    c.id = redactor.redact(c.id);
    c.name = redactor.redact(c.name);
    c.arguments = redactor.redact(c.arguments);
  }
  r.finish_reason = redactor.redact(r.finish_reason);
  r.model = redactor.redact(r.model);
  r.id = redactor.redact(r.id);
}

}  // namespace

LlmResponse read_body(ResponseReader& reader, const std::vector<std::string_view>& pieces) {
  net::HttpResponse response;
  response.status = 200;
  net::BodySink sink = reader.sink();
  for (std::string_view piece : pieces) {
    if (!sink) response.body.append(piece);
    else if (!sink(piece)) break;
  }
  return reader.finish(response);
}

void apply_extra(Value& body, const Value& extra) {
  for (const auto& [k, v] : extra.items()) {
    if (v.is_null()) body.erase(k);
    else body[k] = v;
  }
}

// Whether a body is an API's JSON error (a 404 that is one means "no such model", not "no such endpoint").
bool has_error_message(const std::string& text) {
  Value body = parse_json(text);
  return body.is_object() && body.contains("error");
}

std::string server_message(const std::string& text) {
  Value body = parse_json(text);
  if (!body.is_discarded() && body.is_object()) {
    const Value& err = body.contains("error") ? body["error"] : body;
    if (err.is_object() && err.contains("message") && err["message"].is_string())
      return printable_excerpt(err["message"].get_ref<const std::string&>(), 500);
    if (err.is_string()) return printable_excerpt(err.get_ref<const std::string&>(), 500);
  }
  return quote_excerpt(text, 300);
}

void throw_server_error(const std::string& provider, const Value& error, const std::string& raw) {
  std::string type = string_field(error, "type");
  if (type.empty()) type = string_field(error, "code");
  std::string message = provider + ": the server reported an error: " + server_message(raw);
  if (type == "invalid_request_error" || type == "authentication_error" || type == "permission_error" ||
      type == "not_found_error" || type == "request_too_large")
    throw Error(ErrorKind::LlmHttpError, message);
  throw RetryableError(ErrorKind::LlmStreamError, message);
}

ApiEndpoint::ApiEndpoint(std::string provider, std::string api_key_env, net::HttpTimeouts timeouts, RetryPolicy retry,
                         std::shared_ptr<net::IoThreads> io)
    : provider_(std::move(provider)),
      api_key_env_(std::move(api_key_env)),
      timeouts_(timeouts),
      retry_(retry),
      http_(std::move(io)) {
  if (const char* key = api_key_env_.empty() ? nullptr : std::getenv(api_key_env_.c_str())) api_key_ = key;
  redactor_ = std::make_shared<const Redactor>(std::vector<std::string>{api_key_});
}

const std::string& ApiEndpoint::require_api_key() const {
  if (!api_key_env_.empty() && api_key_.empty())
    throw Error(ErrorKind::LlmNoApiKey,
                provider_ + ": the environment variable " + api_key_env_ + " is not set (the API key is read from it)");
  return api_key_;
}

std::string ApiEndpoint::redact(std::string_view text) const { return redactor()->redact(text); }

// The server's word when it gives one, else exponential backoff with jitter, as the official SDKs do.
std::chrono::milliseconds ApiEndpoint::backoff(int attempt, const net::HttpResponse* r) const {
  if (r) {
    auto wait = parse_ms(r->header("retry-after-ms"), 1, retry_.max_retry_after);
    if (!wait) wait = parse_ms(r->header("retry-after"), 1000, retry_.max_retry_after);
    if (wait) return *wait;
  }
  thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.75, 1.0);
  double ms = static_cast<double>(retry_.initial_backoff.count()) * (1 << std::min(attempt - 1, 10)) * jitter(rng);
  return std::min(retry_.max_backoff, std::chrono::milliseconds(static_cast<long>(ms)));
}

LlmResponse ApiEndpoint::send(const std::string& url, const std::vector<std::string>& headers,
                              const std::string& body, const LlmRequest& request,
                              const std::function<std::unique_ptr<ResponseReader>()>& new_reader) const {
  const std::shared_ptr<const Redactor> masks = this->redactor();
  const Redactor& redactor = *masks;
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<ResponseReader> reader = new_reader();
    std::optional<net::HttpResponse> response;
    std::string failure;
    bool retry = true;
    try {
      response = http_.post(url, headers, body, timeouts_, reader->sink(), request.cancel);
      if (response->status >= 200 && response->status < 300) {
        LlmResponse out = reader->finish(*response);
        redact_response(out, redactor);
        return out;
      }
      // Masked before anything cuts it to an excerpt: a key cut in half would no longer match.
      response->body = redactor.redact(response->body);
      failure = "HTTP " + std::to_string(response->status) + ": " + server_message(response->body);
      if (response->status == 404 && !has_error_message(response->body))
        failure += " (no such endpoint: check the base_url; OpenAI-compatible servers usually serve under /v1)";
      retry = retryable_status(response->status);
      if (const std::string* should = response->header("x-should-retry")) retry = *should == "true";
    } catch (const Value::exception& e) {  // a field of an unexpected type in the answer
      throw Error(ErrorKind::LlmBadResponse, provider_ + ": the server's answer has an unexpected shape (" + e.what() + ")");
    } catch (const RetryableError& e) {
      failure = e.message();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::HttpTransport) throw Error(e.kind(), redactor.redact(e.message()));
      failure = e.message();
    }
    failure = redactor.redact(failure);
    if (!retry) throw Error(ErrorKind::LlmHttpError, provider_ + ": " + url + " answered " + failure);
    auto wait = backoff(attempt + 1, response ? &*response : nullptr);
    // The other calls wait too, even when this one has no retry left.
    if (response && response->status == 429 && retry_.rate_gate) retry_.rate_gate->hold_for(wait);
    if (attempt >= retry_.max_retries)
      throw Error(ErrorKind::LlmUnavailable, provider_ + ": no answer from " + url + " after " + std::to_string(attempt + 1) +
                                         (attempt == 0 ? " attempt: " : " attempts; the last: ") + failure);
    if (request.events) {
      request.events->emit(
          Event{events::LlmRetry{attempt + 1, failure, static_cast<long>(wait.count()), reader->shown_any()}});
    }
    sleep_or_throw(request.cancel, wait);
  }
}

}  // namespace engine::llm
