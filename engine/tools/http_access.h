#pragma once
// HTTP for tools, under their grants (grants.h): what `engine.http.request` in a Lua tool and the built-in
// http_request and fetch tools send. Each URL, redirects included, must lie under a grant that allows its method;
// the grant's headers are added here and never shown to the tool: a response that quotes one (an echo service, an
// error page) has it masked before the tool reads it.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/core/limits.h"
#include "engine/core/redact.h"
#include "engine/tools/grants.h"

namespace engine::net {
class HttpClient;
class IoThreads;
}

namespace engine::tools {

struct HttpCall {
  std::string method = "GET";
  std::string url;  // or a path under the first grant's prefix (resolve())
  std::vector<std::pair<std::string, std::string>> headers;  // the tool's own
  std::string body;
  std::optional<std::chrono::milliseconds> timeout;  // cut to the caller's deadline
};

// A request that may change something (any method but GET, HEAD, OPTIONS) carries a journaled call's idempotency
// key (docs/durability.md), the same on every pass of a resumed run, so a server that honours the header acts once
// however often the call is made. Not when `key` is empty, nor over a key the tool set itself.
void add_idempotency_key(HttpCall& call, std::string_view key);

struct HttpReply {
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::string body;
  std::string url;  // the last one asked, after redirects
};

class HttpAccess {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{30'000};

  // `secrets`: the grants' header values no output may show (those read from ${VAR}, and any of a header that
  // carries credentials by its name).
  // `io`: the process's transport thread for requests from fibers (net/io_threads.h); none: the client's own.
  HttpAccess(std::vector<HttpGrant> grants, std::vector<std::string> secrets, std::shared_ptr<net::IoThreads> io = nullptr);
  ~HttpAccess();
  HttpAccess(const HttpAccess&) = delete;
  HttpAccess& operator=(const HttpAccess&) = delete;

  // Sends `call` under the grant that holds it, following redirects (at most limits::kRedirects) that lie under a grant
  // too. On a fiber the fiber waits, not its thread. Throws Error "tool.refused" (a URL, method or header no grant
  // allows, naming the grant it missed), "tool.timeout" (`deadline` passed), "http.too_large" (a body past the
  // grant's bound), "http.transport"; stops when `cancel` does, as throw_stopped.
  HttpReply request(HttpCall call, SteadyTime deadline, const Cancel* cancel) const;

  // A URL as it is; a path ("tickets/42", "/tickets/42") under the first grant's prefix, so a script or a model
  // names what it wants and the workflow where it lives.
  std::string resolve(const std::string& url) const;

  const std::vector<HttpGrant>& grants() const { return grants_; }
  const std::vector<std::string>& secrets() const { return secrets_; }

 private:
  // The grant that lets `method` reach `url`, or null with `why` saying what the nearest grant lacks.
  const HttpGrant* find_grant(const net::Url& url, const std::string& method, std::string& why) const;
  const HttpGrant& grant_for(const net::Url& url, const std::string& method, const std::string& written) const;

  std::vector<HttpGrant> grants_;
  std::vector<std::string> secrets_;
  Redactor redactor_;
  std::unique_ptr<net::HttpClient> client_;
};

}  // namespace engine::tools
