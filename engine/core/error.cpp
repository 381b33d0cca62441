#include "engine/core/error.h"

#include <algorithm>
#include <vector>

#include "engine/core/utf8.h"

namespace engine {
namespace {

std::string headline(const SourceLoc& loc, const std::string& message) {
  std::string where = loc.str();
  return where.empty() ? message : where + ": " + message;
}

}  // namespace

Error::Error(ErrorKind kind, std::string message, SourceLoc loc, std::string source_line)
    : std::runtime_error(headline(loc, message)),
      kind_(kind),
      message_(std::move(message)),
      loc_(std::move(loc)),
      source_line_(std::move(source_line)) {}

LineExcerpt excerpt_line(std::string_view line, int col) {
  // Where each character starts: the cuts and the caret count characters, not bytes.
  std::vector<size_t> starts;
  for (size_t i = 0; i < line.size(); ++i)
    if (!utf8::is_continuation(static_cast<unsigned char>(line[i]))) starts.push_back(i);
  const int n = static_cast<int>(starts.size());
  const int shown = LineExcerpt::kExcerptChars;
  if (n <= shown) return {std::string(line), col};
  int first = std::clamp(col - 1 - shown / 2, 0, n - shown);  // the first character shown, counted from 0
  int last = first + shown;
  size_t from = starts[first], to = last < n ? starts[last] : line.size();
  LineExcerpt out;
  if (first > 0) out.text = "...";
  out.text += line.substr(from, to - from);
  if (last < n) out.text += "...";
  out.col = col < 1 ? col : col - first + (first > 0 ? 3 : 0);
  return out;
}

std::string Error::formatted() const {
  std::string out = what();
  if (loc_.line > 0 && !source_line_.empty()) {
    LineExcerpt quoted = excerpt_line(source_line_, loc_.col);
    out += "\n  " + quoted.text;
    if (loc_.col < 1) return out;  // a line without a column: quote it, no caret
    out += "\n  ";
    // The caret counts characters, not bytes, so it stays under the column for non-ASCII lines;
    // tabs are kept so the caret lines up with tab-indented sources.
    int col = 1;
    for (size_t i = 0; i < quoted.text.size() && col < quoted.col; ++i) {
      unsigned char c = quoted.text[i];
      if (utf8::is_continuation(c)) continue;
      out += c == '\t' ? '\t' : ' ';
      ++col;
    }
    out += '^';
  }
  return out;
}

Error located_error(ErrorKind kind, std::string message, const SourceText& source, int line, int col) {
  if (auto in_file = source.place_in_file(line, col)) {
    const Embedding& e = *source.embedding();
    std::string quoted(e.file->line(in_file->line));
    return Error(kind, e.key_path + ": " + message, std::move(*in_file), std::move(quoted));
  }
  return Error(kind, std::move(message), source.loc(line, col), std::string(source.line(line)));
}

}  // namespace engine
