// One gate caps the model calls in flight for every client it is given to.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/llm/llm_gate.h"

using namespace engine;

namespace {

// Answers after a while, counting how many of its calls overlap.
class SlowLlm : public llm::LlmClient {
 public:
  llm::LlmResponse complete(const llm::LlmRequest&) const override {
    int now = ++in_flight;
    for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --in_flight;
    return llm::LlmResponse{"ok", "stop", {}, {}, false};
  }
  std::string describe() const override { return "slow"; }
  mutable std::atomic<int> in_flight{0};
  mutable std::atomic<int> most{0};
};

}  // namespace

TEST_CASE("a gate lets through as many calls as its capacity, across every client that shares it", "[llm]") {
  auto slow = std::make_shared<SlowLlm>();
  auto gate = std::make_shared<llm::LlmGate>(2);
  llm::GatedLlm a(slow, gate), b(slow, gate);
  std::vector<std::thread> callers;
  for (int i = 0; i < 8; ++i)
    callers.emplace_back([&, i] { CHECK((i % 2 ? a : b).complete(llm::LlmRequest{}).text == "ok"); });
  for (auto& t : callers) t.join();
  CHECK(slow->most == 2);
  CHECK(a.describe() == "slow");
}
