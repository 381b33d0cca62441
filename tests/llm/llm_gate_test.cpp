// One gate caps the model calls in flight for every client it is given to.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/llm/llm_gate.h"

using namespace engine;

namespace {

// Counts how many of its calls overlap; each answers once two have been in at once (or after 10 s), so a gate of two
// is filled for certain, and a gate that let more through would be seen.
class SlowLlm : public llm::LlmClient {
 public:
  llm::LlmResponse complete(const llm::LlmRequest&) const override {
    int now = ++in_flight;
    {
      std::unique_lock lock(m);
      if (now > most) most = now;
      cv.notify_all();
      cv.wait_for(lock, std::chrono::seconds(10), [&] { return most >= 2; });
    }
    --in_flight;
    return llm::LlmResponse{"ok", "stop", {}, {}, false};
  }
  std::string describe() const override { return "slow"; }
  mutable std::atomic<int> in_flight{0};
  mutable std::atomic<int> most{0};
  mutable std::mutex m;
  mutable std::condition_variable cv;
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

namespace {

// How long a pass through `gate` takes to be granted, in milliseconds.
long ms_to_pass(llm::LlmGate& gate) {
  auto start = std::chrono::steady_clock::now();
  llm::LlmGate::Pass pass(gate, nullptr);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

// The Error a pass ends in, or "" when it was granted.
std::string pass_refusal(llm::LlmGate& gate, const Cancel& cancel) {
  try {
    llm::LlmGate::Pass pass(gate, &cancel);
  } catch (const Error& e) {
    return std::string(e.kind_name());
  }
  return "";
}

}  // namespace

TEST_CASE("requests per minute: calls start one interval apart, in the order they asked", "[llm]") {
  llm::LlmGate gate(8, llm::RateLimits{.requests_per_minute = 600});  // one call every 100 ms
  Cancel at_once(nullptr, std::chrono::steady_clock::now(), "no wait allowed");
  CHECK(pass_refusal(gate, at_once).empty());  // the first call has no one to wait for
  long second = ms_to_pass(gate);
  CHECK(second >= 90);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> callers;
  for (int i = 0; i < 3; ++i) callers.emplace_back([&] { llm::LlmGate::Pass pass(gate, nullptr); });
  for (auto& t : callers) t.join();
  // three more slots: 100, 200 and 300 ms after the last
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(290));
}

TEST_CASE("tokens per minute: once the last minute's tokens reach the limit, calls wait", "[llm]") {
  auto gate = std::make_shared<llm::LlmGate>(8, llm::RateLimits{.tokens_per_minute = 1000});
  CHECK(gate->counts_tokens());
  gate->count_tokens(600);
  Cancel at_once(nullptr, std::chrono::steady_clock::now(), "no wait allowed");
  CHECK(pass_refusal(*gate, at_once).empty());  // 600 of 1000: under the limit
  gate->count_tokens(400);
  Cancel soon(nullptr, std::chrono::steady_clock::now() + std::chrono::milliseconds(100), "the test's wait");
  CHECK(pass_refusal(*gate, soon) == "run.timeout");  // 1000 of 1000: the next waits for the first to age out
  Cancel never;
  llm::LlmGate unlimited(1);
  unlimited.count_tokens(1'000'000);  // counted only under a limit
  CHECK(!unlimited.counts_tokens());
  CHECK(pass_refusal(unlimited, never).empty());
}

TEST_CASE("a hold stops every call through the gate until it ends, and a cancelled wait gives its place back", "[llm]") {
  llm::LlmGate gate(1);
  gate.hold_for(std::chrono::milliseconds(150));
  CHECK(ms_to_pass(gate) >= 140);
  Cancel at_once(nullptr, std::chrono::steady_clock::now(), "no wait allowed");
  CHECK(pass_refusal(gate, at_once).empty());  // the hold is over
  gate.hold_for(std::chrono::milliseconds(300));
  Cancel soon(nullptr, std::chrono::steady_clock::now() + std::chrono::milliseconds(50), "the test's wait");
  CHECK(pass_refusal(gate, soon) == "run.timeout");
  // The gate's one place is free again: had the refused pass kept it, this one would time out too.
  Cancel later(nullptr, std::chrono::steady_clock::now() + std::chrono::seconds(5), "the test's wait");
  CHECK(pass_refusal(gate, later).empty());
}
