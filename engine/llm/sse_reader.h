#pragma once
// A streamed answer read as server-sent events: its text shown as it arrives (TextStream, so stop sequences and
// UTF-8 characters split across chunks come out right), and a body that turns out not to be a stream at all (an
// error sent as plain JSON with status 200) read whole. Providers say what an event means and when a stream is done.
#include <string>

#include "engine/llm/api_endpoint.h"
#include "engine/net/sse_parser.h"
#include "engine/llm/text_stream.h"

namespace engine::llm {

class SseReader : public ResponseReader {
 public:
  // Shown text is masked by `redactor` (a key the server quotes back never reaches the screen or a trace).
  SseReader(const LlmRequest& request, Redactor redactor);

  net::BodySink sink() final;
  bool shown_any() const final { return text_.shown_any(); }
  LlmResponse finish(const net::HttpResponse& response) final;

 protected:
  virtual void on_event(const net::SseEvent& event) = 0;
  // The body had no events: read it as a whole answer (or the error it holds).
  virtual LlmResponse read_whole(const net::HttpResponse& response) = 0;
  // The stream ended (or a stop sequence ended it): the answer, or RetryableError when it was cut short.
  virtual LlmResponse end_of_stream() = 0;

  TextStream text_;

 private:
  static constexpr size_t kMaxHead = size_t{1} << 20;
  net::SseParser sse_;
  std::string head_;  // the body's start, kept until it proves to be a stream
};

}  // namespace engine::llm
