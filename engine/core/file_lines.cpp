#include "engine/core/file_lines.h"

#include <algorithm>

namespace engine {

FileLines::FileLines(const std::filesystem::path& path, size_t max_line, Pipes pipes)
    : reader_(path, kMaxDataFileBytes, pipes), max_line_(max_line) {}

bool FileLines::next(std::string& line) {
  line.clear();
  too_long_ = false;
  start_ = offset_;
  bool any = false;
  for (;;) {
    if (chunk_.empty() && !at_end_) {
      chunk_ = reader_.next();
      at_end_ = chunk_.empty();
    }
    if (chunk_.empty()) {
      if (!any) return false;
      ++line_number_;
      complete_ = false;
      return true;
    }
    any = true;
    size_t nl = chunk_.find('\n');
    std::string_view piece = chunk_.substr(0, nl);
    size_t room = max_line_ - std::min(max_line_, line.size());
    if (piece.size() > room) too_long_ = true;
    line.append(piece.substr(0, std::min(piece.size(), room)));
    if (nl == std::string_view::npos) {
      offset_ += chunk_.size();
      chunk_ = {};
      continue;
    }
    offset_ += nl + 1;
    chunk_.remove_prefix(nl + 1);
    ++line_number_;
    complete_ = true;
    return true;
  }
}

}  // namespace engine
