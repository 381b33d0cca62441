#pragma once
// Server-sent events, as the WHATWG spec reads them: bytes arrive in arbitrary pieces, so a line, a CR LF pair or a
// UTF-8 character may be split across reads. Comments (keep-alives) are skipped; `id` and `retry` are ignored.
#include <functional>
#include <string>
#include <string_view>

namespace engine::net {

struct SseEvent {
  std::string event;  // "message" when the server names none
  std::string data;   // the data lines joined with "\n"
};

class SseParser {
 public:
  explicit SseParser(std::function<void(const SseEvent&)> on_event) : on_event_(std::move(on_event)) {}

  void feed(std::string_view bytes);
  // Whether any event has been dispatched; a body with none was not a stream (an error as plain JSON, say).
  bool saw_event() const { return saw_event_; }

 private:
  void line(std::string_view l);

  std::function<void(const SseEvent&)> on_event_;
  std::string partial_;  // a line not yet ended
  std::string event_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;  // the last byte was CR: a LF that follows ends nothing
  bool at_start_ = true;   // a byte-order mark may open the first line
  bool saw_event_ = false;
};

}  // namespace engine::net
