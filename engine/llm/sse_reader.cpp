#include "engine/llm/sse_reader.h"

namespace engine::llm {

SseReader::SseReader(const LlmRequest& request)
    : text_(request.stop, request.events), sse_([this](const http::SseEvent& e) { on_event(e); }) {}

http::BodySink SseReader::sink() {
  return [this](std::string_view piece) {
    if (!sse_.saw_event() && head_.size() < kMaxHead) head_.append(piece);
    sse_.feed(piece);
    return !text_.stopped();  // past a stop sequence the rest of the answer is not wanted
  };
}

LlmResponse SseReader::finish(const http::HttpResponse&) {
  if (!sse_.saw_event()) {
    http::HttpResponse whole;
    whole.body = std::move(head_);
    return read_whole(whole);
  }
  return end_of_stream();
}

}  // namespace engine::llm
