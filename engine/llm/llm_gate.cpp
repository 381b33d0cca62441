#include "engine/llm/llm_gate.h"


namespace engine::llm {
namespace {

constexpr auto kMinute = std::chrono::minutes(1);

}  // namespace

LlmGate::Pass::Place::Place(LlmGate& g, const Cancel* cancel) : gate(g) {
  std::unique_lock lock(gate.mutex_);
  auto free = [&] { return gate.used_ < gate.capacity_; };
  if (!cancel) {
    gate.freed_.wait(lock, free);
  } else {
    std::stop_callback wake(cancel->token(), [&] { gate.freed_.notify_all(); });
    while (!free()) {
      if (cancel->stopped()) throw_stopped(*cancel);
      gate.freed_.wait_until(lock, Clock::now() + cancel->wait_slice(std::chrono::seconds(1)));
    }
  }
  ++gate.used_;
}

LlmGate::Pass::Place::~Place() {
  {
    std::lock_guard lock(gate.mutex_);
    --gate.used_;
  }
  gate.freed_.notify_one();
}

LlmGate::Pass::Pass(LlmGate& gate, const Cancel* cancel) : place_(gate, cancel) {
  if (gate.paced()) gate.wait_for_turn(cancel);
}

long LlmGate::tokens_in_last_minute(Clock::time_point now) {
  while (!recent_tokens_.empty() && recent_tokens_.front().first + kMinute <= now) recent_tokens_.pop_front();
  long sum = 0;
  for (const auto& [at, tokens] : recent_tokens_) sum += tokens;
  return sum;
}

LlmGate::Clock::time_point LlmGate::next_turn(Clock::time_point now, bool& has_slot) {
  Clock::time_point start = std::max(now, hold_until_);
  if (limits_.tokens_per_minute > 0) {
    // Over the limit: not before enough of the last minute's tokens have aged out; the caller then looks again.
    long over = tokens_in_last_minute(now) - static_cast<long>(limits_.tokens_per_minute);
    for (auto it = recent_tokens_.begin(); over >= 0 && it != recent_tokens_.end(); ++it) {
      start = std::max(start, it->first + kMinute);
      over -= it->second;
    }
    if (start > now) return start;
  }
  if (limits_.requests_per_minute > 0 && !has_slot) {
    // The slot is taken now, even if it is later: calls start in the order they asked, one interval apart.
    start = std::max(start, next_start_);
    next_start_ = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(60.0 / limits_.requests_per_minute));
    has_slot = true;
  }
  return start;
}

void LlmGate::wait_for_turn(const Cancel* cancel) {
  bool has_slot = false;
  for (;;) {
    Clock::time_point now = Clock::now();
    Clock::time_point start;
    {
      std::lock_guard lock(mutex_);
      start = next_turn(now, has_slot);
    }
    if (start <= now) return;
    // A hold or the tokens may move the turn while it waits: it looks again when the wait ends.
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(start - now);
    sleep_or_throw(cancel, wait);
  }
}

void LlmGate::hold_for(std::chrono::milliseconds wait) {
  std::lock_guard lock(mutex_);
  hold_until_ = std::max(hold_until_, Clock::now() + wait);
  held_ = true;
}

void LlmGate::count_tokens(long tokens) {
  if (!counts_tokens() || tokens <= 0) return;
  std::lock_guard lock(mutex_);
  recent_tokens_.emplace_back(Clock::now(), tokens);
}

LlmResponse GatedLlm::complete(const LlmRequest& request) const {
  LlmGate::Pass pass(*gate_, request.cancel);
  LlmResponse response = inner_->complete(request);
  gate_->count_tokens(response.usage.total());
  return response;
}

}  // namespace engine::llm
