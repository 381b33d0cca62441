#include "engine/llm/llm_gate.h"

namespace engine::llm {

LlmGate::Pass::Pass(LlmGate& gate) : gate_(gate) {
  std::unique_lock lock(gate_.mutex_);
  gate_.freed_.wait(lock, [&] { return gate_.used_ < gate_.capacity_; });
  ++gate_.used_;
}

LlmGate::Pass::~Pass() {
  {
    std::lock_guard lock(gate_.mutex_);
    --gate_.used_;
  }
  gate_.freed_.notify_one();
}

LlmResponse GatedLlm::complete(const LlmRequest& request) const {
  LlmGate::Pass pass(*gate_);
  return inner_->complete(request);
}

}  // namespace engine::llm
