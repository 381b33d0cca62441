#pragma once
// One cap on the model calls in flight, and one pace for them, shared by every client it is given to: the steps of
// a workflow, its sub-workflows and agents, and every run of a batch then wait their turn instead of opening more
// requests than a server (or a rate limit) takes. When a server answers "too many requests", every call through
// the gate waits as long as it asked, not only the one that heard it.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

#include "engine/core/fiber.h"
#include "engine/llm/llm_client.h"

namespace engine::llm {

// A provider's published limits, as a batch is told them (--rpm, --tpm); 0 is no limit.
struct RateLimits {
  double requests_per_minute = 0;
  double tokens_per_minute = 0;
};

class LlmGate {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LlmGate(size_t capacity, RateLimits limits = {})
      : capacity_(capacity == 0 ? 1 : capacity), limits_(limits) {}
  size_t capacity() const { return capacity_; }
  const RateLimits& limits() const { return limits_; }

  // Holds one of the gate's places while it lives.
  class Pass {
   public:
    // Waits for a place, then for the call's turn under the limits and any hold; throws as throw_stopped when
    // `cancel` (may be null) stops first.
    Pass(LlmGate& gate, const Cancel* cancel);
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    struct Place {  // a member, so that a wait for the pace that throws gives the place back
      Place(LlmGate& gate, const Cancel* cancel);
      ~Place();
      LlmGate& gate;
    };
    Place place_;
  };

  // A server asked to wait (HTTP 429 with Retry-After): no call starts through the gate for `wait`.
  void hold_for(std::chrono::milliseconds wait);
  // What a finished call used, for the tokens-per-minute limit.
  void count_tokens(long tokens);
  bool counts_tokens() const { return limits_.tokens_per_minute > 0; }

 private:
  // When the call may start: after any hold, once the last minute's tokens are under their limit, and in its slot
  // of the requests-per-minute pace, which it takes unless `has_slot`. Called with mutex_ held.
  Clock::time_point next_turn(Clock::time_point now, bool& has_slot);
  long tokens_in_last_minute(Clock::time_point now);
  void wait_for_turn(const Cancel* cancel);
  bool paced() const { return limits_.requests_per_minute > 0 || limits_.tokens_per_minute > 0 || held_; }

  size_t capacity_;
  RateLimits limits_;
  size_t used_ = 0;
  Clock::time_point next_start_{};  // the earliest start the requests-per-minute pace gives the next call
  Clock::time_point hold_until_{};
  std::atomic<bool> held_{false};  // once a server asked to wait, every call looks at the hold
  std::deque<std::pair<Clock::time_point, long>> recent_tokens_;  // the last minute's finished calls
  std::mutex mutex_;
  Condition freed_;  // a run on a fiber waits for a place without holding its thread
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
