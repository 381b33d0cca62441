#pragma once
// Bearer tokens: when a server has any, every request but /healthz must carry one of them.
#include <string>
#include <vector>

#include "engine/server/http_message.h"

namespace engine::server {

class TokenCheck {
 public:
  TokenCheck() = default;  // open: no token needed
  explicit TokenCheck(std::vector<std::string> tokens);

  bool open() const { return tokens_.empty(); }
  // Whether the request's `Authorization: Bearer TOKEN` names a token. Compared in constant time, so how long an
  // answer takes tells nothing of how much of a guess was right.
  bool allows(const HttpRequest& request) const;

  // The tokens of a file (one a line; blank lines and # comments skipped) and of ENGINE_SERVE_TOKENS's value
  // (comma-separated). Throws Error "io.*" for a file that cannot be read, "serve.bad_token" for a token shorter
  // than 16 bytes or with spaces in it.
  static std::vector<std::string> read(const std::string& file, const char* env_value);

 private:
  std::vector<std::string> tokens_;
};

}  // namespace engine::server
