#pragma once
// The text of a streamed answer, delta by delta, and what of it may be shown yet. A stop sequence may arrive split
// over two deltas, so a tail that could still become one is held back until it cannot; a UTF-8 character split
// over two deltas is held back until whole. What is shown, in order, is exactly the final text: never more.
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/event.h"
#include "engine/core/redact.h"

namespace engine::llm {

class TextStream {
 public:
  // Shown text goes to `events` as "llm_token" events {text}; `events` may be null (nothing shown). `stop` must
  // outlive the stream. Shown text is masked by `redactor`, holding back a tail that may be the start of a secret.
  TextStream(const std::vector<std::string>& stop, EventSink* events, Redactor redactor = {})
      : stop_(stop), events_(events), redactor_(std::move(redactor)) {}

  // Adds a delta. Returns false once a stop sequence has been seen: the rest of the answer is not wanted.
  bool add(std::string_view delta);
  // The answer has ended: shows what was held back. The text shown adds up to the redacted final text.
  void finish();

  bool stopped() const { return stopped_; }
  bool shown_any() const { return shown_ > 0; }
  const std::string& text() const { return text_; }
  std::string take_text() { return std::move(text_); }

 private:
  void show(size_t upto, bool final = false);

  const std::vector<std::string>& stop_;
  EventSink* events_;
  Redactor redactor_;
  std::string text_;
  size_t shown_ = 0;
  bool stopped_ = false;
};

}  // namespace engine::llm
