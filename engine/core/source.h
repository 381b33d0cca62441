#pragma once
// A named piece of source text (a YAML file, a template) that errors can point into.
#include <memory>
#include <string>
#include <string_view>

namespace engine {

// 1-based line and column; line 0 means "no position known".
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  bool known() const { return line > 0; }
  std::string str() const;  // "file:line:col", "file:line", or "file"
};

class SourceText {
 public:
  SourceText(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {}
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The text of a 1-based line, without its line end; empty when out of range.
  std::string_view line(int n) const;
  SourceLoc loc(int line, int col) const { return {name_, line, col}; }

 private:
  std::string name_;
  std::string text_;
};

using SourceTextPtr = std::shared_ptr<const SourceText>;

}  // namespace engine
