#pragma once
// Anthropic's Messages API: the system prompt apart, content blocks, tool_use / tool_result blocks, stop_sequences,
// max_tokens required, whole or streamed.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/llm/api_endpoint.h"
#include "engine/llm/llm_client.h"

namespace engine::llm {

struct AnthropicConfig {
  std::string base_url = "https://api.anthropic.com/v1";
  std::string model;
  std::string api_key_env = "ANTHROPIC_API_KEY";
  std::string version = "2023-06-01";  // the anthropic-version header
  std::optional<double> temperature;
  int max_tokens = 4096;  // the API requires one
  std::optional<bool> parallel_tool_calls;
  RetryPolicy retry;
  net::HttpTimeouts timeouts;
  std::shared_ptr<net::IoThreads> io;  // the process's transport thread; none: the client's own
  Value extra = Value::object();  // keys passed through verbatim
};

class AnthropicLlm : public LlmClient {
 public:
  explicit AnthropicLlm(AnthropicConfig config);
  LlmResponse complete(const LlmRequest& request) const override;
  // What complete() makes of a 2xx answer, without HTTP: `pieces` are the body as it arrived (a stream's bytes when
  // request.stream is set). For tests and fuzzing of what servers send; throws as complete() does.
  LlmResponse read_answer(const LlmRequest& request, const std::vector<std::string_view>& pieces) const;
  std::string describe() const override { return "anthropic:" + cfg_.model; }

  Value request_body(const LlmRequest& request) const;
  std::string url() const { return cfg_.base_url + "/messages"; }

 private:
  AnthropicConfig cfg_;
  ApiEndpoint api_;
};

}  // namespace engine::llm
