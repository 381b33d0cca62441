#include "engine/core/source.h"

#include "engine/core/utf8.h"

namespace engine {

std::string SourceLoc::str() const {
  if (file.empty() && !known()) return "";
  std::string s = file.empty() ? "<input>" : file;
  if (line > 0) s += ":" + std::to_string(line);
  if (line > 0 && col > 0) s += ":" + std::to_string(col);
  return s;
}

std::string_view SourceText::line(int n) const {
  if (n < 1) return {};
  size_t start = 0;
  for (int i = 1; i < n; ++i) {
    start = text_.find('\n', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  size_t end = text_.find('\n', start);
  std::string_view l(text_.data() + start, (end == std::string::npos ? text_.size() : end) - start);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

namespace {

// The byte offset of a 1-based column counted in characters (UTF-8 continuation bytes do not count).
size_t byte_of_col(std::string_view s, int col) { return col <= 1 ? 0 : utf8::offset(s, static_cast<size_t>(col - 1)); }

int col_of_byte(std::string_view s, size_t byte) { return 1 + static_cast<int>(utf8::count(s.substr(0, byte))); }

// The lines of a text read forward only, each found from the one before: SourceText::line(n) scans from the start,
// which, once per line of a long embedded template, would be quadratic in the file's size.
class ForwardLines {
 public:
  explicit ForwardLines(std::string_view text) : text_(text) {}
  std::string_view line(int n) {  // n never decreases between calls
    while (number_ < n && start_ <= text_.size()) {
      size_t end = text_.find('\n', start_);
      start_ = end == std::string_view::npos ? text_.size() + 1 : end + 1;
      ++number_;
    }
    if (start_ > text_.size()) return {};
    size_t end = text_.find('\n', start_);
    std::string_view l = text_.substr(start_, end == std::string_view::npos ? std::string_view::npos : end - start_);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return l;
  }

 private:
  std::string_view text_;
  int number_ = 1;
  size_t start_ = 0;
};

// A line of the file may hold the next piece a few lines on (a blank line a plain scalar folds away).
constexpr int kLookahead = 3;

}  // namespace

std::string SourceText::position_text(int line, int col) const {
  if (auto in_file = place_in_file(line, col)) line = in_file->line, col = in_file->col;
  return std::to_string(line) + ":" + std::to_string(col);
}

std::optional<SourceLoc> SourceText::place_in_file(int line, int col) const {
  if (!embedding_ || !embedding_->file || line < 1) return std::nullopt;
  const SourceText& file = *embedding_->file;
  const int wrap = embedding_->wrap;
  ForwardLines lines(file.text());
  int y = embedding_->line;
  size_t x = byte_of_col(lines.line(y), embedding_->col);
  size_t start = 0;
  for (int i = 1; start <= text_.size(); ++i) {
    size_t end = text_.find('\n', start);
    if (end == std::string::npos) end = text_.size();
    std::string_view piece(text_.data() + start, end - start);
    bool last = end == text_.size();
    int piece_col = i == line ? col : 1;
    if (i == 1 && wrap > 0) {
      size_t cut = std::min<size_t>(wrap, piece.size());
      piece.remove_prefix(cut);
      piece_col -= static_cast<int>(cut);
    }
    if (last && wrap > 0) piece.remove_suffix(std::min<size_t>(wrap, piece.size()));
    if (piece.empty()) {  // nothing to look for: the next line of the file
      if (i == line) return std::nullopt;
      ++y;
      x = 0;
    } else {
      bool found = false;
      for (int tries = 0; tries < kLookahead && !found; ++tries) {
        std::string_view fl = lines.line(y);
        size_t at = x <= fl.size() ? fl.find(piece, x) : std::string_view::npos;
        if (at != std::string_view::npos) {
          found = true;
          if (i == line) {
            size_t in_piece = byte_of_col(piece, std::max(1, piece_col));
            return file.loc(y, col_of_byte(fl, at + in_piece));
          }
          x = at + piece.size();
        } else {
          ++y;
          x = 0;
        }
      }
      if (!found) return std::nullopt;
    }
    if (last) break;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace engine
