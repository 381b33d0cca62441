#pragma once
// One cap on the model calls in flight, shared by every client it is given to: the steps of a workflow, its
// sub-workflows and agents, and every run of a batch then wait their turn instead of opening more requests than a
// server (or a rate limit) takes.
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

#include "engine/llm/llm_client.h"

namespace engine::llm {

class LlmGate {
 public:
  explicit LlmGate(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  size_t capacity() const { return capacity_; }

  // Holds one of the gate's places while it lives.
  class Pass {
   public:
    // Waits for a place; throws as throw_stopped when `cancel` (may be null) stops first.
    Pass(LlmGate& gate, const Cancel* cancel);
    ~Pass();
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    LlmGate& gate_;
  };

 private:
  size_t capacity_;
  size_t used_ = 0;
  std::mutex mutex_;
  std::condition_variable_any freed_;  // waits that a cancelled run can leave
};

// A client whose calls pass the gate.
class GatedLlm : public LlmClient {
 public:
  GatedLlm(std::shared_ptr<const LlmClient> inner, std::shared_ptr<LlmGate> gate)
      : inner_(std::move(inner)), gate_(std::move(gate)) {}
  LlmResponse complete(const LlmRequest& request) const override;
  std::string describe() const override { return inner_->describe(); }

 private:
  std::shared_ptr<const LlmClient> inner_;
  std::shared_ptr<LlmGate> gate_;
};

}  // namespace engine::llm
