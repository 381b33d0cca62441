#pragma once
// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio, ...), with retries that
// keep a run alive through rate limits and transient faults.
#include <chrono>
#include <optional>
#include <string>

#include "engine/llm/http/http_client.h"
#include "engine/llm/llm_client.h"

namespace engine::llm {

struct OpenAiConfig {
  std::string provider = "openai";  // for messages and traces: openai, ollama, llamacpp
  std::string base_url;             // ".../v1"
  std::string model;
  std::string api_key_env;          // the variable the key is read from; empty: no key
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::string max_tokens_field = "max_tokens";  // OpenAI's newer models want max_completion_tokens
  int max_retries = 2;                           // as the official SDKs
  http::HttpTimeouts timeouts;
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8000};
  std::chrono::milliseconds max_retry_after{60'000};  // a server's Retry-After is honoured up to this
  size_t max_stop_sequences = 4;                      // more are applied by the engine to the text
  Value extra = Value::object();                      // keys passed through verbatim
};

class OpenAiLlm : public LlmClient {
 public:
  explicit OpenAiLlm(OpenAiConfig config) : cfg_(std::move(config)) {}
  LlmResponse complete(const LlmRequest& request) const override;
  std::string describe() const override { return cfg_.provider + ":" + cfg_.model; }

  // The request body for a request, as sent (exposed for tests and traces).
  Value request_body(const LlmRequest& request) const;

 private:
  LlmResponse parse_response(const http::HttpResponse& r, const LlmRequest& request) const;
  std::string redact(std::string text) const;

  OpenAiConfig cfg_;
  http::HttpClient http_;
};

}  // namespace engine::llm
