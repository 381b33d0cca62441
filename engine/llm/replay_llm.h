#pragma once
// provider: replay (or --llm replay:FILE): serves the responses of a recording (RecordingLlm's JSON lines) back,
// matching each request by its content. A request the recording does not hold is an error that shows how it
// differs from the closest recorded one, so a changed prompt is found at once in CI.
#include <map>
#include <string>
#include <vector>

#include "engine/llm/llm_client.h"

namespace engine::llm {

class ReplayLlm : public LlmClient {
 public:
  // Reads and checks the whole file; throws Error "io.*" or "llm.bad_recording" naming file:line.
  explicit ReplayLlm(const std::string& file);
  LlmResponse complete(const LlmRequest& request) const override;
  std::string describe() const override { return "replay:" + file_; }

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Value request;
    std::string key;  // the request's canonical text
    LlmResponse response;
    int line = 0;
  };

  std::string file_;
  std::vector<Entry> entries_;
  std::map<std::string, std::vector<size_t>> by_key_;  // identical requests, in recorded order
};

// A short line diff of two requests, "-" for the recorded and "+" for the actual lines, with a line of context.
std::string request_diff(const Value& recorded, const Value& actual, size_t max_lines = 24);

}  // namespace engine::llm
