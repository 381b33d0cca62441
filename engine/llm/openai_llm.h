#pragma once
// OpenAI-compatible APIs (OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio, OpenRouter, ...): chat completions,
// or the legacy text completions, whole or streamed.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/llm/api_endpoint.h"
#include "engine/llm/llm_client.h"

namespace engine::llm {

enum class OpenAiEndpoint { Chat, Completions };

struct OpenAiConfig {
  std::string provider = "openai";  // for messages and traces: openai, ollama, llamacpp
  std::string base_url;             // ".../v1"
  std::string model;
  std::string api_key_env;  // the variable the key is read from; empty: no key
  OpenAiEndpoint endpoint = OpenAiEndpoint::Chat;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::string max_tokens_field = "max_tokens";  // OpenAI's newer models want max_completion_tokens
  std::optional<long long> seed;
  Value response_format;                 // null, or {type: json_object} / {type: json_schema, json_schema: ...}
  std::optional<bool> parallel_tool_calls;
  RetryPolicy retry;
  net::HttpTimeouts timeouts;
  std::shared_ptr<net::IoThreads> io;  // the process's transport thread; none: the client's own
  size_t max_stop_sequences = 4;  // more are applied by the engine to the text
  Value extra = Value::object();  // keys passed through verbatim
};

class OpenAiLlm : public LlmClient {
 public:
  explicit OpenAiLlm(OpenAiConfig config);
  LlmResponse complete(const LlmRequest& request) const override;
  // What complete() makes of a 2xx answer, without HTTP: `pieces` are the body as it arrived (a stream's bytes when
  // request.stream is set). For tests and fuzzing of what servers send; throws as complete() does.
  LlmResponse read_answer(const LlmRequest& request, const std::vector<std::string_view>& pieces) const;
  std::string describe() const override { return cfg_.provider + ":" + cfg_.model; }

  // The request body as sent (exposed for tests and traces).
  Value request_body(const LlmRequest& request) const;
  std::string url() const;

 private:
  OpenAiConfig cfg_;
  ApiEndpoint api_;
};

}  // namespace engine::llm
