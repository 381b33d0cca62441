#include "engine/core/usage_meter.h"

namespace engine {

void UsageMeter::add(long prompt_tokens, long completion_tokens, double cost_usd, bool priced) {
  for (UsageMeter* m = this; m; m = m->parent_) {
    std::lock_guard lock(m->mutex_);
    m->spent_.prompt_tokens += prompt_tokens;
    m->spent_.completion_tokens += completion_tokens;
    ++m->spent_.llm_calls;
    if (priced) {
      m->spent_.cost_usd += cost_usd;
      ++m->spent_.priced_calls;
    }
  }
}

SpentUsage UsageMeter::spent() const {
  std::lock_guard lock(mutex_);
  return spent_;
}

}  // namespace engine
