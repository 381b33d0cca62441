#pragma once
// HTTP over libcurl, for every user (the LLM providers, MCP servers, granted APIs). Connections are kept alive and
// reused: a client holds a small pool of curl handles, each with its own connection cache, shared by every run (and
// thread) of an executor. A run on a thread drives its own transfer; runs on fibers (a batch's, a server's) hand
// theirs to the transport thread of the client's IoThreads (net/io_threads.h), shared by every client a front end
// builds, while their fibers give their threads up.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/limits.h"
#include "engine/net/http_message.h"

namespace engine::net {

class IoThreads;

struct HttpTimeouts {
  std::chrono::milliseconds connect{10'000};
  std::chrono::milliseconds total{600'000};  // a whole request, body included
  std::chrono::milliseconds read{120'000};   // streams only: the longest wait for the next byte
};

struct HttpRequest {
  std::string method = "POST";       // GET, POST, PUT, PATCH, DELETE, HEAD, ...: capital letters only
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent with POST, PUT and PATCH, and with any other method when not empty
  HttpTimeouts timeouts;
  size_t max_response_bytes = limits::kResponseBytes;  // the caller's bound on the body; past it, "http.too_large"
  // Once the sink has what it wanted (it returned false), how long the rest of the body may take to end. A body that
  // ends within it keeps its connection for the next request (cutting a transfer closes the connection); one that
  // goes on longer is cut then (curl looks about once a second). 0: cut at once.
  std::chrono::milliseconds linger{0};
};

// Receives a 2xx body piece by piece as it arrives. Returning false ends the transfer early (a stop sequence was
// seen, say); an exception it throws ends it too and comes out of post().
using BodySink = std::function<bool(std::string_view piece)>;

class HttpClient {
 public:
  // `io`: the process's I/O threads, whose transport drives this client's transfers from fibers; none: its own.
  explicit HttpClient(std::shared_ptr<IoThreads> io = nullptr);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Throws Error "http.transport" (connection refused, reset, timed out, ...) with curl's reason, "http.too_large"
  // for a body past the request's bound, "http.bad_request" for a method that is not one; an HTTP error status is
  // a response, not an exception. With a sink, a 2xx body goes to it instead of into the response. When `cancel`
  // stops, the transfer is abandoned within a few milliseconds and send() throws as throw_stopped (core/cancel.h).
  HttpResponse send(const HttpRequest& request, const BodySink& sink = nullptr, const Cancel* cancel = nullptr) const;
  HttpResponse post(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                    const HttpTimeouts& timeouts, const BodySink& sink = nullptr, const Cancel* cancel = nullptr) const {
    return send(HttpRequest{"POST", url, headers, body, timeouts}, sink, cancel);
  }

 private:
  struct Handle;
  std::unique_ptr<Handle> acquire() const;
  void release(std::unique_ptr<Handle> h) const;
  IoThreads& io() const;  // the one given, or the client's own made with its first transfer from a fiber

  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Handle>> idle_;
  mutable std::shared_ptr<IoThreads> io_;
};

}  // namespace engine::net
