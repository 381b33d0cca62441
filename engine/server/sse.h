#pragma once
// Server-sent events: the framing of a served run's stream and of OpenAI's chat chunks.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "engine/core/event.h"
#include "engine/server/exchange.h"

namespace engine::server {

// "event: NAME\ndata: DATA\n\n" (no event line when `name` is empty). `data` must hold no line break: JSON text
// does not.
std::string sse_event(std::string_view name, std::string_view data);

// The head of an SSE response.
HttpResponse sse_head();

// A run's events as SSE events on an exchange ("event: llm_token", "data: {t_ms, type, run_id, ...}").
// Bulky fields (prompts, messages, inputs) are left out, whatever other sinks of the run read (the run store reads
// them all): a client watching a run wants its steps, not its prompts.
class SseEventSink : public EventSink {
 public:
  explicit SseEventSink(std::shared_ptr<Exchange> exchange)
      : exchange_(std::move(exchange)), start_(std::chrono::steady_clock::now()) {}
  void receive(const Event& event, const EventPlace& place) override;
  EventDetail detail() const override { return EventDetail::Summary; }

 private:
  std::shared_ptr<Exchange> exchange_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace engine::server
