#include "engine/core/source.h"

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

}  // namespace engine
