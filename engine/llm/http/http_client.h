#pragma once
// HTTP POST over libcurl, for the LLM providers. Connections are kept alive and reused: a client holds a small
// pool of curl handles, each with its own connection cache, shared by every run (and thread) of an executor.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace engine::llm::http {

struct HttpTimeouts {
  std::chrono::milliseconds connect{10'000};
  std::chrono::milliseconds total{600'000};  // a whole request, body included
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased

  const std::string* header(const std::string& lowercase_name) const;
};

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Throws Error "http.transport" (connection refused, reset, timed out, ...) with curl's reason; an HTTP error
  // status is a response, not an exception.
  HttpResponse post(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                    const HttpTimeouts& timeouts) const;

 private:
  struct Handle;
  std::unique_ptr<Handle> acquire() const;
  void release(std::unique_ptr<Handle> h) const;

  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Handle>> idle_;
};

}  // namespace engine::llm::http
