#include "engine/llm/text_stream.h"

#include <algorithm>

#include "engine/core/utf8.h"

namespace engine::llm {
namespace {

// The longest tail of `text` after `from` that is the start of a stop sequence (but not all of one).
size_t pending_stop_prefix(std::string_view text, size_t from, const std::vector<std::string>& stop) {
  size_t longest = 0;
  for (const auto& s : stop) {
    if (s.empty()) continue;
    size_t max = std::min(s.size() - 1, text.size() - from);
    for (size_t k = max; k > longest; --k)
      if (text.substr(text.size() - k) == std::string_view(s).substr(0, k)) {
        longest = k;
        break;
      }
  }
  return longest;
}


}  // namespace

bool TextStream::add(std::string_view delta) {
  if (stopped_) return false;
  text_.append(delta);
  // A stop sequence can only start where nothing has been shown: anything that could begin one was held back.
  size_t cut = std::string::npos;
  for (const auto& s : stop_) {
    if (s.empty()) continue;
    size_t at = text_.find(s, shown_);
    if (at < cut) cut = at;
  }
  if (cut != std::string::npos) {
    text_.resize(cut);
    show(cut, true);
    stopped_ = true;
    return false;
  }
  size_t safe = text_.size() - pending_stop_prefix(text_, shown_, stop_);
  show(utf8::complete_end(text_, safe));
  return true;
}

void TextStream::finish() { show(text_.size(), true); }

void TextStream::show(size_t upto, bool final) {
  if (upto <= shown_) return;
  if (!events_) {
    shown_ = upto;
    return;
  }
  std::string piece;
  size_t end = redactor_.redact_stream(text_, shown_, upto, final, piece);
  if (end <= shown_) return;
  shown_ = end;
  if (!piece.empty()) events_->emit(Event{events::LlmToken{std::move(piece)}});
}

}  // namespace engine::llm
