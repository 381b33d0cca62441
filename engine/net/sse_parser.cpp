#include "engine/net/sse_parser.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/limits.h"

namespace engine::net {

void SseParser::feed(std::string_view bytes) {
  size_t start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    char c = bytes[i];
    if (c != '\r' && c != '\n') continue;
    if (c == '\n' && after_cr_ && i == start && partial_.empty()) {
      // the LF of a CR LF pair whose CR ended the previous line
      after_cr_ = false;
      start = i + 1;
      continue;
    }
    after_cr_ = c == '\r';
    if (partial_.empty()) {
      line(bytes.substr(start, i - start));
    } else {
      partial_.append(bytes.substr(start, i - start));
      std::string l = std::move(partial_);
      partial_.clear();
      line(l);
    }
    start = i + 1;
  }
  if (start < bytes.size()) {
    after_cr_ = false;
    partial_.append(bytes.substr(start));
    if (partial_.size() > limits::kStreamLineBytes)
      throw Error(ErrorKind::HttpBadStream, "the server sent a stream line longer than " +
                                        std::to_string(limits::kStreamLineBytes >> 20) + " MiB without ending it");
  }
}

void SseParser::line(std::string_view l) {
  if (at_start_) {
    at_start_ = false;
    if (l.substr(0, 3) == "\xEF\xBB\xBF") l.remove_prefix(3);
  }
  if (l.empty()) {
    if (has_data_) {
      if (!data_.empty() && data_.back() == '\n') data_.pop_back();
      saw_event_ = true;
      on_event_(SseEvent{event_.empty() ? "message" : event_, data_, last_id_});
    }
    event_.clear();
    data_.clear();
    has_data_ = false;
    return;
  }
  if (l[0] == ':') {  // a comment: servers send them to keep the connection alive
    if (on_comment_) on_comment_(l.substr(1));
    return;
  }
  size_t colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (data_.size() + value.size() > limits::kStreamEventBytes)
      throw Error(ErrorKind::HttpBadStream, "the server sent a stream event of more than " + std::to_string(limits::kStreamEventBytes >> 20) +
                                        " MiB");
    data_.append(value);
    data_.push_back('\n');
    has_data_ = true;
  } else if (field == "event") {
    event_ = value;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos && value.size() <= limits::kStreamIdBytes) last_id_ = value;
  } else if (field == "retry") {
    bool digits = !value.empty() && value.size() <= 12 &&
                  std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (digits) retry_ms_ = std::stoll(std::string(value));
  }
}

}  // namespace engine::net
