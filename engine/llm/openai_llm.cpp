#include "engine/llm/openai_llm.h"

#include <cstdlib>
#include <random>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::llm {
namespace {

std::string api_key(const OpenAiConfig& cfg) {
  if (cfg.api_key_env.empty()) return "";
  const char* key = std::getenv(cfg.api_key_env.c_str());
  return key ? key : "";
}

bool retryable_status(long status) { return status == 408 || status == 409 || status == 429 || status >= 500; }

// How long to wait before attempt `attempt` (1-based retry): the server's word when it gives one, else exponential
// backoff with jitter, as the official SDKs do.
std::chrono::milliseconds backoff(const OpenAiConfig& cfg, int attempt, const http::HttpResponse* r) {
  if (r) {
    if (const std::string* ms = r->header("retry-after-ms")) {
      try {
        return std::min(cfg.max_retry_after, std::chrono::milliseconds(std::stol(*ms)));
      } catch (const std::exception&) {
      }
    }
    if (const std::string* s = r->header("retry-after")) {
      try {
        return std::min(cfg.max_retry_after, std::chrono::milliseconds(static_cast<long>(std::stod(*s) * 1000)));
      } catch (const std::exception&) {  // an HTTP date: fall back to our own backoff
      }
    }
  }
  std::random_device rd;
  std::uniform_real_distribution<double> jitter(0.75, 1.0);
  double ms = static_cast<double>(cfg.initial_backoff.count()) * (1 << std::min(attempt - 1, 10)) * jitter(rd);
  return std::min(cfg.max_backoff, std::chrono::milliseconds(static_cast<long>(ms)));
}

std::string server_message(const http::HttpResponse& r) {
  Value body = Value::parse(r.body, nullptr, false);
  if (!body.is_discarded() && body.is_object()) {
    const Value& err = body.contains("error") ? body["error"] : body;
    if (err.is_object() && err.contains("message") && err["message"].is_string()) return err["message"];
    if (err.is_string()) return err.get<std::string>();
  }
  return quote_excerpt(r.body, 300);
}

}  // namespace

std::string OpenAiLlm::redact(std::string text) const {
  std::string key = api_key(cfg_);
  if (key.size() < 4) return text;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) text.replace(at, key.size(), "***");
  return text;
}

Value OpenAiLlm::request_body(const LlmRequest& request) const {
  Value body = Value::object();
  body["model"] = cfg_.model;
  Value messages = Value::array();
  if (request.messages.empty()) {
    messages.push_back(Value{{"role", "user"}, {"content", request.prompt}});
  } else {
    for (const auto& m : request.messages) messages.push_back(Value{{"role", m.role}, {"content", m.content}});
  }
  body["messages"] = std::move(messages);
  if (!request.stop.empty()) {
    Value stop = Value::array();
    for (size_t i = 0; i < request.stop.size() && i < cfg_.max_stop_sequences; ++i) stop.push_back(request.stop[i]);
    body["stop"] = std::move(stop);
  }
  auto temperature = request.temperature ? request.temperature : cfg_.temperature;
  if (temperature) body["temperature"] = *temperature;
  auto max_tokens = request.max_tokens ? request.max_tokens : cfg_.max_tokens;
  if (max_tokens) body[cfg_.max_tokens_field] = *max_tokens;
  for (const auto& [k, v] : cfg_.extra.items()) body[k] = v;
  return body;
}

LlmResponse OpenAiLlm::parse_response(const http::HttpResponse& r, const LlmRequest& request) const {
  Value body = Value::parse(r.body, nullptr, false);
  auto bad = [&](const std::string& why) {
    return Error("llm.bad_response", cfg_.provider + ": " + why + ": " + redact(quote_excerpt(r.body, 200)));
  };
  if (body.is_discarded()) throw bad("the server's answer is not JSON");
  if (!body.is_object() || !body.contains("choices") || !body["choices"].is_array() || body["choices"].empty())
    throw bad("the server's answer has no choices");
  const Value& choice = body["choices"][0];
  LlmResponse out;
  if (choice.contains("message") && choice["message"].is_object()) {
    const Value& content = choice["message"].value("content", Value());
    if (content.is_string()) out.text = content.get<std::string>();
  } else if (choice.contains("text") && choice["text"].is_string()) {
    out.text = choice["text"].get<std::string>();
  } else {
    throw bad("the first choice has neither a message nor text");
  }
  const Value reason = choice.value("finish_reason", Value());
  out.finish_reason = reason.is_string() ? reason.get<std::string>() : "stop";
  // Servers accept a few stop sequences at most; the rest are applied here, exactly as a server would.
  if (cut_at_stop(out.text, request.stop)) out.finish_reason = "stop";
  const Value usage = body.value("usage", Value());
  auto count = [&](const char* key) {
    const Value v = usage.value(key, Value());
    return v.is_number_integer() ? v.get<long>() : 0L;
  };
  if (usage.is_object() && usage.contains("prompt_tokens")) {
    out.usage.prompt_tokens = count("prompt_tokens");
    out.usage.completion_tokens = count("completion_tokens");
  } else {
    out.usage.prompt_tokens = estimate_tokens(request.prompt);
    out.usage.completion_tokens = estimate_tokens(out.text);
    out.usage_estimated = true;
  }
  return out;
}

LlmResponse OpenAiLlm::complete(const LlmRequest& request) const {
  std::string key = api_key(cfg_);
  if (!cfg_.api_key_env.empty() && key.empty() && cfg_.provider == "openai")
    throw Error("llm.no_api_key", cfg_.provider + ": the environment variable " + cfg_.api_key_env +
                                      " is not set (the API key is read from it)");
  std::vector<std::string> headers = {"Content-Type: application/json", "Accept: application/json"};
  if (!key.empty()) headers.push_back("Authorization: Bearer " + key);
  std::string url = cfg_.base_url + "/chat/completions";
  std::string body = request_body(request).dump(-1, ' ', false, Value::error_handler_t::replace);

  std::string last_error;
  for (int attempt = 0;; ++attempt) {
    std::optional<http::HttpResponse> response;
    try {
      response = http_.post(url, headers, body, cfg_.timeouts);
    } catch (const Error& e) {
      last_error = e.message();
    }
    if (response && response->status >= 200 && response->status < 300) return parse_response(*response, request);

    bool retry = !response || retryable_status(response->status);
    if (response) {
      last_error = "HTTP " + std::to_string(response->status) + ": " + server_message(*response);
      if (const std::string* should = response->header("x-should-retry")) retry = *should == "true";
    }
    last_error = redact(last_error);
    if (!retry)
      throw Error("llm.http_error", cfg_.provider + ": " + url + " answered " + last_error);
    if (attempt >= cfg_.max_retries)
      throw Error("llm.unavailable", cfg_.provider + ": no answer from " + url + " after " +
                                         std::to_string(attempt + 1) + " attempts; the last: " + last_error);
    auto wait = backoff(cfg_, attempt + 1, response ? &*response : nullptr);
    if (request.events)
      request.events->emit(Event{"llm_retry", Value{{"attempt", attempt + 1},
                                                    {"error", last_error},
                                                    {"wait_ms", static_cast<long>(wait.count())}}});
    std::this_thread::sleep_for(wait);
  }
}

}  // namespace engine::llm
