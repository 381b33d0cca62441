#include "engine/core/error.h"

namespace engine {
namespace {

std::string headline(const SourceLoc& loc, const std::string& message) {
  std::string where = loc.str();
  return where.empty() ? message : where + ": " + message;
}

}  // namespace

Error::Error(std::string kind, std::string message, SourceLoc loc, std::string source_line)
    : std::runtime_error(headline(loc, message)),
      kind_(std::move(kind)),
      message_(std::move(message)),
      loc_(std::move(loc)),
      source_line_(std::move(source_line)) {}

std::string Error::formatted() const {
  std::string out = what();
  if (loc_.line > 0 && !source_line_.empty()) {
    out += "\n  " + source_line_;
    if (loc_.col < 1) return out;  // a line without a column: quote it, no caret
    out += "\n  ";
    // The caret counts characters, not bytes, so it stays under the column for non-ASCII lines;
    // tabs are kept so the caret lines up with tab-indented sources.
    int col = 1;
    for (size_t i = 0; i < source_line_.size() && col < loc_.col; ++i) {
      unsigned char c = source_line_[i];
      if ((c & 0xC0) == 0x80) continue;
      out += c == '\t' ? '\t' : ' ';
      ++col;
    }
    out += '^';
  }
  return out;
}

Error located_error(std::string kind, std::string message, const SourceText& source, int line, int col) {
  if (auto in_file = source.place_in_file(line, col)) {
    const Embedding& e = *source.embedding();
    std::string quoted(e.file->line(in_file->line));
    return Error(std::move(kind), e.key_path + ": " + message, std::move(*in_file), std::move(quoted));
  }
  return Error(std::move(kind), std::move(message), source.loc(line, col), std::string(source.line(line)));
}

}  // namespace engine
