#pragma once
// A loopback stand-in for OpenAI-compatible and Anthropic servers, run inside the tests: it serves scripted replies
// in order, whole or streamed piece by piece, and injects faults (status codes, headers, malformed bodies, stalls,
// connections cut mid-stream). 127.0.0.1 only.
#include <chrono>
#include <memory>
#include <string>
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
    int delay_ms = 0;  // before the answer starts
    // Streamed when non-empty: each piece is written on its own, `piece_delay_ms` apart, so the client reads
    // them separately.
    std::vector<std::string> pieces;
    int piece_delay_ms = 2;
    int stall_after_ms = 0;     // after the last piece, wait this long before ending the body
    bool cut = false;           // after the last piece, drop the connection instead of ending the body
  };
  struct Request {
    std::string path;
    Value body;
    std::string authorization;
    std::string api_key;  // x-api-key
    std::string anthropic_version;
    std::chrono::steady_clock::time_point received;
    int client_port = 0;  // tells the connections apart
    std::string traceparent;
  };

  // Serves `connections` kept-alive connections at once, a thread each (cpp-httplib's model); more wait their turn.
  explicit MockLlmServer(size_t connections = 8);
  ~MockLlmServer();
  MockLlmServer(const MockLlmServer&) = delete;
  MockLlmServer& operator=(const MockLlmServer&) = delete;

  std::string base_url() const;  // http://127.0.0.1:PORT/v1
  void enqueue(Reply r);
  std::vector<Request> requests() const;
  // Holds every answer until `count` requests in all have come (or 20 s have passed, counted in gate_timeouts()):
  // calls made at once are then proven in flight together by their answers alone, with no time measured.
  void answer_after_requests(size_t count);
  int gate_timeouts() const;

  // A chat.completions answer with `content`.
  static Reply chat(const std::string& content, int prompt_tokens = 11, int completion_tokens = 7);
  // The same answer as a chat.completions stream: `deltas` as content deltas, then usage and [DONE].
  static Reply chat_stream(const std::vector<std::string>& deltas, int prompt_tokens = 11, int completion_tokens = 7);
  // One event of such a stream: a content delta, not finished.
  static std::string chat_delta(const std::string& content);
  // An Anthropic Messages answer with `text`, whole or streamed as text deltas.
  static Reply message(const std::string& text, int input_tokens = 13, int output_tokens = 5);
  static Reply message_stream(const std::vector<std::string>& deltas, int input_tokens = 13, int output_tokens = 5);
  // One server-sent event, as written on the wire.
  static std::string sse(const Value& data, const std::string& event = "");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace engine::test
