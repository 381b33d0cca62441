#pragma once
// What a run's model calls have spent, counted as each call ends: every call the run made, whether its step then
// failed or was tried again, and the calls of a sub-workflow used as a step or a tool. Meters nest: a call counted
// by an agent's meter is counted by the meter of the step, graph and run it belongs to, so each level reports, and
// each budget binds on, everything spent beneath it.
#include <mutex>

namespace engine {

struct SpentUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  int llm_calls = 0;
  double cost_usd = 0;
  int priced_calls = 0;  // calls whose model's price was known (their cost is in cost_usd)

  long total_tokens() const { return prompt_tokens + completion_tokens; }
};

class UsageMeter {
 public:
  explicit UsageMeter(UsageMeter* parent = nullptr) : parent_(parent) {}
  UsageMeter(const UsageMeter&) = delete;
  UsageMeter& operator=(const UsageMeter&) = delete;

  // One model call's spend (`priced`: its cost is known), here and in every meter above. From any thread.
  void add(long prompt_tokens, long completion_tokens, double cost_usd, bool priced);
  SpentUsage spent() const;

 private:
  UsageMeter* parent_;
  mutable std::mutex mutex_;
  SpentUsage spent_;
};

}  // namespace engine
