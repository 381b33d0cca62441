#pragma once
// What the provider tests share: configurations pointed at the loopback server with fast retries, and a way to
// catch the error a call ends in.
#include <cstdlib>
#include <functional>
#include <string>

#include "engine/core/error.h"
#include "engine/llm/anthropic_llm.h"
#include "engine/llm/openai_llm.h"
#include "support/mock_llm_server.h"

namespace engine::test {

inline const char* const kTestKey = "sk-test-0123456789abcdef";

inline llm::RetryPolicy fast_retries() {
  llm::RetryPolicy r;
  r.initial_backoff = std::chrono::milliseconds(1);
  r.max_backoff = std::chrono::milliseconds(5);
  return r;
}

inline llm::OpenAiConfig openai_config(const MockLlmServer& server) {
  setenv("ENGINE_TEST_OPENAI_KEY", kTestKey, 1);
  llm::OpenAiConfig c;
  c.base_url = server.base_url();
  c.model = "test-model";
  c.api_key_env = "ENGINE_TEST_OPENAI_KEY";
  c.retry = fast_retries();
  c.timeouts.total = std::chrono::milliseconds(5000);
  return c;
}

inline llm::AnthropicConfig anthropic_config(const MockLlmServer& server) {
  setenv("ENGINE_TEST_ANTHROPIC_KEY", kTestKey, 1);
  llm::AnthropicConfig c;
  c.base_url = server.base_url();
  c.model = "claude-test";
  c.api_key_env = "ENGINE_TEST_ANTHROPIC_KEY";
  c.retry = fast_retries();
  c.timeouts.total = std::chrono::milliseconds(5000);
  return c;
}

// The message of the Error `call` throws ("no error" when it throws none); its kind in `kind`.
inline std::string error_of(const std::function<void()>& call, std::string* kind = nullptr) {
  try {
    call();
  } catch (const Error& e) {
    if (kind) *kind = e.kind_name();
    return e.what();
  }
  return "no error";
}

}  // namespace engine::test
