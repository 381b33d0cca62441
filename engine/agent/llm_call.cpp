#include "engine/agent/llm_call.h"

#include "engine/core/error.h"
#include "engine/core/json_text.h"

namespace engine::agent {
namespace {

std::vector<events::ToolCallMade> calls_made(const std::vector<llm::ToolCall>& calls) {
  std::vector<events::ToolCallMade> made;
  made.reserve(calls.size());
  for (const auto& c : calls) made.push_back({c.id, c.name, c.arguments});
  return made;
}

events::LlmStart start_event(const llm::LlmClient& llm, const llm::LlmRequest& req, EventDetail detail,
                             const std::string& span_id) {
  events::LlmStart start;
  start.call = req.call_index;
  start.llm = llm.describe();
  start.stream = req.stream;
  start.span_id = span_id;
  start.temperature = req.temperature;
  if (req.max_tokens) start.max_tokens = *req.max_tokens;
  start.stop = req.stop;
  if (detail != EventDetail::Full) return start;
  start.prompt = req.prompt;
  start.messages.reserve(req.messages.size());
  for (const auto& m : req.messages) start.messages.push_back({m.role, m.content, calls_made(m.tool_calls), m.tool_call_id});
  return start;
}

}  // namespace

LlmCall call_llm(const llm::LlmClient& llm, llm::LlmRequest& req, EventSink& events,
                 const std::optional<llm::Price>& price, UsageMeter* meter, const TraceContext* trace,
                 const JournalScope& journal) {
  bool watched = events.detail() != EventDetail::None;
  std::string span_id;
  if (trace) {
    span_id = new_span_id();
    req.traceparent = format_traceparent(trace->trace_id, span_id, trace->sampled);
  }
  if (watched) events.emit({start_event(llm, req, events.detail(), span_id)});
  LlmCall call;
  std::string key, asked;
  const JournalEntry* recorded = nullptr;
  if (journal) {
    key = "llm." + std::to_string(req.call_index);
    asked = to_json_text(llm::request_to_json(req));
    recorded = journal.journal->recorded(journal.path, JournalKind::Llm, key, asked);
  }
  try {
    call.response = recorded ? llm::response_from_json(recorded->value) : llm.complete(req);
  } catch (const Error& e) {
    // A call that fails ends too, so its start pairs with an end (a span closes) whatever the run does next.
    if (watched)
      events.emit({events::LlmEnd{.call = req.call_index, .error = events::ErrorInfo{std::string(e.kind_name()), e.message(), ""}}});
    throw;
  }
  const llm::LlmResponse& resp = call.response;
  if (journal && !recorded)
    journal.journal->write({journal.path, JournalKind::Llm, std::move(key), std::move(asked), llm::response_to_json(resp)});
  if (price) call.cost_usd = price->cost(resp.usage);
  if (meter) meter->add(resp.usage.prompt_tokens, resp.usage.completion_tokens, call.cost_usd, price.has_value());
  if (!watched) return call;
  events::LlmEnd end;
  end.call = req.call_index;
  end.text = resp.text;
  end.finish_reason = resp.finish_reason;
  end.usage = {resp.usage.prompt_tokens, resp.usage.completion_tokens, resp.usage_estimated, std::nullopt};
  if (price) end.usage.cost_usd = call.cost_usd;
  end.tool_calls = calls_made(resp.tool_calls);
  end.model = resp.model;
  end.id = resp.id;
  events.emit({std::move(end)});
  return call;
}

}  // namespace engine::agent
