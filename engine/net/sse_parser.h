#pragma once
// Server-sent events, as the WHATWG spec reads them: bytes arrive in arbitrary pieces, so a line, a CR LF pair or a
// UTF-8 character may be split across reads. `id` sets the last event id every later event carries (and a resumed
// stream sends back as Last-Event-ID), `retry` the reconnection time; comments go to their own callback, if any.
#include <functional>
#include <string>
#include <string_view>

namespace engine::net {

struct SseEvent {
  std::string event;  // "message" when the server names none
  std::string data;   // the data lines joined with "\n"; "" for a `data:` line with nothing after it
  std::string id;     // the last event id when the event was dispatched ("" when none was ever given)
};

class SseParser {
 public:
  explicit SseParser(std::function<void(const SseEvent&)> on_event,
                     std::function<void(std::string_view)> on_comment = nullptr)
      : on_event_(std::move(on_event)), on_comment_(std::move(on_comment)) {}

  void feed(std::string_view bytes);
  // Whether any event has been dispatched; a body with none was not a stream (an error as plain JSON, say).
  bool saw_event() const { return saw_event_; }
  const std::string& last_event_id() const { return last_id_; }
  // The server's `retry:` in milliseconds, or -1 when it gave none.
  long long retry_ms() const { return retry_ms_; }

 private:
  void line(std::string_view l);

  std::function<void(const SseEvent&)> on_event_;
  std::function<void(std::string_view)> on_comment_;
  std::string partial_;  // a line not yet ended
  std::string last_id_;
  long long retry_ms_ = -1;
  std::string event_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;  // the last byte was CR: a LF that follows ends nothing
  bool at_start_ = true;   // a byte-order mark may open the first line
  bool saw_event_ = false;
};

}  // namespace engine::net
