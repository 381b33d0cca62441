#pragma once
// One model call as every run reports it: llm_start before (the request's parameters; the prompt or messages only
// for a sink that reads everything), llm_end after with usage, the answering model and, when the price is known,
// cost.
#include <optional>

#include "engine/core/event.h"
#include "engine/core/journal.h"
#include "engine/core/trace_context.h"
#include "engine/core/usage_meter.h"
#include "engine/llm/llm_client.h"

namespace engine::agent {

struct LlmCall {
  llm::LlmResponse response;
  double cost_usd = 0;  // 0 when the price is unknown
};

// The call is counted by `meter` (and the meters above it) as soon as it ends, whatever its caller does next. In a
// traced run (`trace` not null) the call gets a span id, which llm_start carries and the request sends as its
// traceparent.
// In a journaled run (`journal` not empty) the call is `llm.N` (N its call_index) at the journal's path: a response
// the journal recorded there for the same request is returned (and counted, as the first pass counted it) without
// the call being made; else the response is recorded once it comes.
LlmCall call_llm(const llm::LlmClient& llm, llm::LlmRequest& request, EventSink& events,
                 const std::optional<llm::Price>& price, UsageMeter* meter, const TraceContext* trace = nullptr,
                 const JournalScope& journal = {});

}  // namespace engine::agent
