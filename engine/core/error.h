#pragma once
// The one error type for bad input and failed runs. Each has a kind (core/error_kind.h, with its stable name
// documented in docs/errors.md), and a location when the error comes from a file the user wrote.
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/core/error_kind.h"
#include "engine/core/source.h"

namespace engine {

class Error : public std::runtime_error {
 public:
  // message: lowercase, says what was expected and found.
  Error(ErrorKind kind, std::string message, SourceLoc loc = {}, std::string source_line = {});

  ErrorKind kind() const { return kind_; }
  std::string_view kind_name() const { return name_of(kind_); }
  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }
  const std::string& source_line() const { return source_line_; }

  // "file:line:col: message", then the source line and a caret under the column when both are known.
  std::string formatted() const;

 private:
  ErrorKind kind_;
  std::string message_;
  SourceLoc loc_;
  std::string source_line_;
};

// What an error quotes of a source line: the whole line up to kExcerptChars characters; past that (a minified file,
// a line of megabytes) that many characters around the column, "..." marking each cut. `col` is the column within
// the excerpt, counted in characters as the caret is.
struct LineExcerpt {
  static constexpr int kExcerptChars = 160;
  std::string text;
  int col = 0;
};
LineExcerpt excerpt_line(std::string_view line, int col);

// Builds an error located in `source`, quoting its line for the caret.
Error located_error(ErrorKind kind, std::string message, const SourceText& source, int line, int col);

}  // namespace engine
