#pragma once
// A named piece of source text (a YAML file, a template) that errors can point into.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace engine {

class SourceText;

// 1-based line and column; line 0 means "no position known".
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  bool known() const { return line > 0; }
  std::string str() const;  // "file:line:col", "file:line", or "file"
};

// Where a text written inside another file starts there: a template inline in a YAML file. Its errors then point
// into that file, at the line the user wrote, rather than at line 1 of "w.yaml (agent.prompt)".
struct Embedding {
  std::shared_ptr<const SourceText> file;
  int line = 0;  // where the value starts (the YAML node's position, its quote or block indicator included)
  int col = 0;
  std::string key_path;  // "steps.reply.template": said before the message, as the YAML errors say it
  int wrap = 0;          // characters the engine put around the text (an expression's "{{ " and " }}")
};

class SourceText {
 public:
  SourceText(std::string name, std::string text, std::optional<Embedding> embedding = std::nullopt)
      : name_(std::move(name)), text_(std::move(text)), embedding_(std::move(embedding)) {}
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The text of a 1-based line, without its line end; empty when out of range.
  std::string_view line(int n) const;
  SourceLoc loc(int line, int col) const { return {name_, line, col}; }
  const std::optional<Embedding>& embedding() const { return embedding_; }
  // Where a 1-based line and column of this text are in the file it is embedded in. Each line of the text is looked
  // for there in order, from the embedding's start, so a line written twice maps to its own place; nullopt when a
  // line does not appear as it is (a quoted scalar's escapes, a folded block), or the text is not embedded.
  std::optional<SourceLoc> place_in_file(int line, int col) const;
  // "line:col" for a message that names a second place ("opened at line 3:5"), in the file's lines when embedded.
  std::string position_text(int line, int col) const;

 private:
  std::string name_;
  std::string text_;
  std::optional<Embedding> embedding_;
};

using SourceTextPtr = std::shared_ptr<const SourceText>;

}  // namespace engine
