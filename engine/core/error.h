#pragma once
// The one error type for bad input and failed runs. Each kind has a stable name documented in docs/errors.md,
// and a location when the error comes from a file the user wrote.
#include <stdexcept>
#include <string>

#include "engine/core/source.h"

namespace engine {

class Error : public std::runtime_error {
 public:
  // kind: stable dotted name such as "spec.unknown_key"; message: lowercase, says what was expected and found.
  Error(std::string kind, std::string message, SourceLoc loc = {}, std::string source_line = {});

  const std::string& kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }
  const std::string& source_line() const { return source_line_; }

  // "file:line:col: message", then the source line and a caret under the column when both are known.
  std::string formatted() const;

 private:
  std::string kind_;
  std::string message_;
  SourceLoc loc_;
  std::string source_line_;
};

// Builds an error located in `source`, quoting its line for the caret.
Error located_error(std::string kind, std::string message, const SourceText& source, int line, int col);

}  // namespace engine
