#include "engine/agent/llm_call.h"

#include "engine/core/error.h"

namespace engine::agent {
namespace {

Value start_event(const llm::LlmClient& llm, const llm::LlmRequest& req, EventDetail detail,
                  const std::string& span_id) {
  Value start{{"call", req.call_index}, {"llm", llm.describe()}};
  if (req.stream) start["stream"] = true;
  if (!span_id.empty()) start["span_id"] = span_id;
  if (req.temperature) start["temperature"] = *req.temperature;
  if (req.max_tokens) start["max_tokens"] = *req.max_tokens;
  if (!req.stop.empty()) start["stop"] = req.stop;
  if (detail != EventDetail::Full) return start;
  start["prompt"] = req.prompt;
  if (!req.messages.empty()) {
    Value messages = Value::array();
    for (const auto& m : req.messages) {
      Value msg{{"role", m.role}, {"content", m.content}};
      if (!m.tool_calls.empty()) msg["tool_calls"] = llm::tool_calls_to_json(m.tool_calls);
      if (!m.tool_call_id.empty()) msg["tool_call_id"] = m.tool_call_id;
      messages.push_back(std::move(msg));
    }
    start["messages"] = std::move(messages);
  }
  return start;
}

}  // namespace

LlmCall call_llm(const llm::LlmClient& llm, llm::LlmRequest& req, EventSink& events,
                 const std::optional<llm::Price>& price, UsageMeter* meter, const TraceContext* trace) {
  bool watched = events.detail() != EventDetail::None;
  std::string span_id;
  if (trace) {
    span_id = new_span_id();
    req.traceparent = format_traceparent(trace->trace_id, span_id, trace->sampled);
  }
  if (watched) events.emit({EventType::LlmStart, start_event(llm, req, events.detail(), span_id)});
  LlmCall call;
  try {
    call.response = llm.complete(req);
  } catch (const Error& e) {
    // A call that fails ends too, so its start pairs with an end (a span closes) whatever the run does next.
    if (watched)
      events.emit({EventType::LlmEnd, Value{{"call", req.call_index}, {"error", {{"kind", e.kind()}, {"message", e.message()}}}}});
    throw;
  }
  const llm::LlmResponse& resp = call.response;
  if (price) call.cost_usd = price->cost(resp.usage);
  if (meter) meter->add(resp.usage.prompt_tokens, resp.usage.completion_tokens, call.cost_usd, price.has_value());
  if (!watched) return call;
  Value usage{{"prompt_tokens", resp.usage.prompt_tokens},
              {"completion_tokens", resp.usage.completion_tokens},
              {"estimated", resp.usage_estimated}};
  if (price) usage["cost_usd"] = call.cost_usd;
  Value end{{"call", req.call_index}, {"text", resp.text}, {"finish_reason", resp.finish_reason}, {"usage", std::move(usage)}};
  if (!resp.tool_calls.empty()) end["tool_calls"] = llm::tool_calls_to_json(resp.tool_calls);
  if (!resp.model.empty()) end["model"] = resp.model;
  if (!resp.id.empty()) end["id"] = resp.id;
  events.emit({EventType::LlmEnd, std::move(end)});
  return call;
}

}  // namespace engine::agent
