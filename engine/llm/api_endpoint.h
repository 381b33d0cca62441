#pragma once
// What every HTTP provider shares: where the API is, the key from the environment, and the retry loop that keeps a
// run alive through rate limits, 5xx, dropped connections and cut streams. Providers only build request bodies and
// read answers (ResponseReader).
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/redact.h"
#include "engine/net/http_client.h"
#include "engine/llm/llm_client.h"
#include "engine/llm/llm_gate.h"

namespace engine::llm {

struct RetryPolicy {
  int max_retries = 2;  // as the official SDKs
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8000};
  std::chrono::milliseconds max_retry_after{60'000};  // a server's Retry-After is honoured up to this
  // Told when the server answers 429, so that every call through it waits, not only the one that heard it. May be
  // null.
  std::shared_ptr<LlmGate> rate_gate;
};

// A fault after the server accepted the request (a stream cut short, an error event mid-stream): worth another try.
class RetryableError : public Error {
 public:
  using Error::Error;
};

// Reads one attempt's 2xx answer: all at once (finish), or as it streams in (sink, then finish).
class ResponseReader {
 public:
  virtual ~ResponseReader() = default;
  // Where a streamed body goes; null reads the whole body in finish().
  virtual net::BodySink sink() { return nullptr; }
  // Throws Error for an answer that cannot be used, RetryableError for one worth another try.
  virtual LlmResponse finish(const net::HttpResponse& response) = 0;
  // Whether part of this attempt's text has been shown (a retry then says the shown text is void).
  virtual bool shown_any() const { return false; }
};

// A 2xx body fed to `reader` as it would arrive, in `pieces`, and the answer it reads: what a provider makes of a
// server's bytes without HTTP, for tests and fuzzing.
LlmResponse read_body(ResponseReader& reader, const std::vector<std::string_view>& pieces);

class ApiEndpoint {
 public:
  // The key is read from `api_key_env` here, once, when the provider is built (an executor's providers are built
  // once and shared by its runs): a request never reads the environment, and a key changed in it later is not seen.
  ApiEndpoint(std::string provider, std::string api_key_env, net::HttpTimeouts timeouts, RetryPolicy retry,
              std::shared_ptr<net::IoThreads> io = nullptr);

  // The key ("" when none is configured or set).
  const std::string& api_key() const { return api_key_; }
  // Throws "llm.no_api_key" when a key is configured but its variable was unset when the provider was built.
  const std::string& require_api_key() const;
  // Masks the key, whole or in part (core/redact.h). Whatever a server sends passes through it before any output.
  // Built once, with the provider: it is a table of 8 KB.
  std::shared_ptr<const Redactor> redactor() const { return redactor_; }
  std::string redact(std::string_view text) const;

  // POSTs `body` to `url` and reads the answer with a fresh reader per attempt, retrying as the policy says.
  // Each retry is an "llm_retry" event on request.events.
  LlmResponse send(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                   const LlmRequest& request, const std::function<std::unique_ptr<ResponseReader>()>& reader) const;

  const std::string& provider() const { return provider_; }

 private:
  std::chrono::milliseconds backoff(int attempt, const net::HttpResponse* r) const;

  std::string provider_;
  std::string api_key_env_;
  std::string api_key_;
  net::HttpTimeouts timeouts_;
  RetryPolicy retry_;
  net::HttpClient http_;
  std::shared_ptr<const Redactor> redactor_;
};

// The message an error body carries ({"error": {"message": ...}} and its variants), else an excerpt of the body;
// printable (control bytes escaped) and bounded. The body must be redacted first.
std::string server_message(const std::string& body);

// The workflow's `extra` keys over a request body: each replaces the body's key, and a null removes it (for a server
// that refuses a key the engine sends, such as stream_options).
void apply_extra(Value& body, const Value& extra);

// An {"error": ...} a server sent with status 200, whole or as a stream event: an Error "llm.http_error" when its
// type says the request is at fault, else a RetryableError (the server's fault, worth another try). `raw` must be
// redacted.
[[noreturn]] void throw_server_error(const std::string& provider, const Value& error, const std::string& raw);

}  // namespace engine::llm
