#pragma once
// --record FILE: wraps any provider and writes each request with its response as one JSON line, so that a run made
// once against a real model can be served back by ReplayLlm in CI, without a network or a bill.
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/secret_set.h"
#include "engine/llm/llm_client.h"

namespace engine::llm {

class RecordingLlm : public LlmClient {
 public:
  // `secrets` are masked in what is written: the file is an output of the process. Throws Error "io.write_failed".
  RecordingLlm(std::shared_ptr<const LlmClient> inner, const std::string& file, std::shared_ptr<const SecretSet> secrets);
  LlmResponse complete(const LlmRequest& request) const override;
  std::string describe() const override { return inner_->describe(); }

 private:
  std::shared_ptr<const LlmClient> inner_;
  std::shared_ptr<const SecretSet> secrets_;
  mutable std::mutex mu_;  // runs on several threads share the file
  mutable std::ofstream out_;
};

}  // namespace engine::llm
