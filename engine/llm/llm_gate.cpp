#include "engine/llm/llm_gate.h"

namespace engine::llm {

LlmGate::Pass::Pass(LlmGate& gate, const Cancel* cancel) : gate_(gate) {
  std::unique_lock lock(gate_.mutex_);
  auto free = [&] { return gate_.used_ < gate_.capacity_; };
  if (!cancel) {
    gate_.freed_.wait(lock, free);
  } else {
    while (!free()) {
      if (cancel->stopped()) throw_stopped(*cancel);
      gate_.freed_.wait_for(lock, cancel->token(), cancel->wait_slice(std::chrono::seconds(1)), free);
    }
  }
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
  LlmGate::Pass pass(*gate_, request.cancel);
  return inner_->complete(request);
}

}  // namespace engine::llm
