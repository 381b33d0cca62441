#include "engine/server/sse.h"

#include "engine/core/json_text.h"
#include "engine/trace/event_record.h"

namespace engine::server {

std::string sse_event(std::string_view name, std::string_view data) {
  std::string out;
  out.reserve(name.size() + data.size() + 16);
  if (!name.empty()) {
    out += "event: ";
    out += name;
    out += '\n';
  }
  out += "data: ";
  out += data;
  out += "\n\n";
  return out;
}

HttpResponse sse_head() {
  return {200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}}, ""};
}

void SseEventSink::receive(const Event& event, const EventPlace& place) {
  double t_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  exchange_->send(sse_event(event_name(event.type()), trace::event_line(event, place, t_ms, detail())));
}

}  // namespace engine::server
