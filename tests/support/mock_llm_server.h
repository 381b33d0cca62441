#pragma once
// A loopback stand-in for an OpenAI-compatible server, run inside the tests: it serves scripted replies in order
// and injects faults (status codes, headers, malformed bodies, stalls). 127.0.0.1 only.
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/value.h"

namespace engine::test {

class MockLlmServer {
 public:
  struct Reply {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    int delay_ms = 0;
  };
  struct Request {
    Value body;
    std::string authorization;
  };

  MockLlmServer();
  ~MockLlmServer();
  MockLlmServer(const MockLlmServer&) = delete;
  MockLlmServer& operator=(const MockLlmServer&) = delete;

  std::string base_url() const;  // http://127.0.0.1:PORT/v1
  void enqueue(Reply r);
  std::vector<Request> requests() const;

  // A chat.completions answer with `content`.
  static Reply chat(const std::string& content, int prompt_tokens = 11, int completion_tokens = 7);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace engine::test
