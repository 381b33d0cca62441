#include "engine/llm/sse_reader.h"

#include "engine/core/text.h"

namespace engine::llm {

SseReader::SseReader(const LlmRequest& request, Redactor redactor)
    : text_(request.stop, request.events, std::move(redactor)), sse_([this](const net::SseEvent& e) { on_event(e); }) {}

net::BodySink SseReader::sink() {
  return [this](std::string_view piece) {
    if (!sse_.saw_event() && head_.size() < kMaxHead) head_.append(piece);
    sse_.feed(piece);
    return !text_.stopped();  // past a stop sequence the rest of the answer is not wanted
  };
}

LlmResponse SseReader::finish(const net::HttpResponse&) {
  if (!sse_.saw_event()) {
    // A body that began as a stream and ended before its first event was cut, not answered: worth another try.
    std::string_view head = trim(head_);
    if (head.empty() || head.front() == ':' || starts_with(head, "data") || starts_with(head, "event") ||
        starts_with(head, "id") || starts_with(head, "retry"))
      throw RetryableError(ErrorKind::LlmStreamCut, "the stream ended before its first event");
    net::HttpResponse whole;
    whole.body = std::move(head_);
    return read_whole(whole);
  }
  return end_of_stream();
}

}  // namespace engine::llm
