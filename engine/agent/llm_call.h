#pragma once
// One model call as every run reports it: llm_start before (the prompt or messages only for a sink that reads
// everything), llm_end after with usage and, when the price is known, cost.
#include <optional>

#include "engine/core/event.h"
#include "engine/core/usage_meter.h"
#include "engine/llm/llm_client.h"

namespace engine::agent {

struct LlmCall {
  llm::LlmResponse response;
  double cost_usd = 0;  // 0 when the price is unknown
};

// The call is counted by `meter` (and the meters above it) as soon as it ends, whatever its caller does next.
LlmCall call_llm(const llm::LlmClient& llm, const llm::LlmRequest& request, EventSink& events,
                 const std::optional<llm::Price>& price, UsageMeter* meter);

}  // namespace engine::agent
