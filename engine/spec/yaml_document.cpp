#include "engine/spec/yaml_document.h"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"

namespace engine::spec {

namespace {

// The error's line, or the one before it, when its indentation holds a tab: the tab's line and column. yaml-cpp
// reports such a line as "illegal map value", on it or on the line after; a tab in a value, or in a block of text
// far from the error, has nothing to do with it.
std::optional<std::pair<int, int>> tab_indent_before(const SourceText& source, int line) {
  for (int n = line; n >= std::max(1, line - 1); --n) {
    std::string_view text = source.line(n);
    size_t lead = text.find_first_not_of(" \t");
    size_t tab = text.substr(0, lead).find('\t');
    if (tab != std::string_view::npos && lead != std::string_view::npos)
      return std::pair<int, int>{n, static_cast<int>(tab) + 1};
  }
  return std::nullopt;
}

size_t indent_of(std::string_view line) {
  size_t n = line.find_first_not_of(' ');
  return n == std::string_view::npos ? line.size() : n;
}

// A line with nothing for the structure: blank, or a comment.
bool is_structural(std::string_view line) {
  size_t n = line.find_first_not_of(" \t");
  return n != std::string_view::npos && line[n] != '#';
}

// The line without a trailing comment and spaces (a '#' after a space starts a comment, as YAML says; quotes are
// not followed, which is enough for telling whether the line ends with ':' or a block scalar's '|' or '>').
std::string_view without_comment(std::string_view line) {
  size_t hash = line.find(" #");
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  size_t end = line.find_last_not_of(" \t\r");
  return end == std::string_view::npos ? std::string_view() : line.substr(0, end + 1);
}

// The indentations a line after `until` may line up with: every mapping key and sequence item still open there, as
// a forward walk over the lines before sees them (block scalars' text skipped); and whether the last line opens a
// deeper level (a key with no value on its line, or a bare '-').
struct OpenLevels {
  std::vector<size_t> levels;  // increasing
  bool last_opens = false;
};

OpenLevels open_levels(const SourceText& source, int until) {
  OpenLevels open;
  std::optional<size_t> block_scalar;  // the indentation of the key whose '|' or '>' text is being skipped
  for (int n = 1; n < until; ++n) {
    std::string_view text = source.line(n);
    if (!is_structural(text)) continue;
    size_t indent = indent_of(text);
    if (block_scalar && indent > *block_scalar) continue;
    block_scalar.reset();
    while (!open.levels.empty() && open.levels.back() > indent) open.levels.pop_back();
    if (open.levels.empty() || open.levels.back() != indent) open.levels.push_back(indent);
    std::string_view content = without_comment(text.substr(indent));
    size_t item = indent;
    while (content.size() >= 2 && content[0] == '-' && content[1] == ' ') {  // "- key: v": the key is a level too
      size_t rest = content.find_first_not_of(' ', 1);
      if (rest == std::string_view::npos) break;
      item += rest;
      content = content.substr(rest);
      open.levels.push_back(item);
    }
    char last = content.empty() ? ' ' : content.back();
    bool scalar_follows = content.size() >= 2 && content.find(": ") != std::string_view::npos &&
                          (last == '|' || last == '>' || content.ends_with("|-") || content.ends_with(">-") ||
                           content.ends_with("|+") || content.ends_with(">+"));
    if (scalar_follows) block_scalar = indent;
    open.last_opens = last == ':' || content == "-";
  }
  return open;
}

// When line `n` is indented to no level open above it: the message saying so. yaml-cpp's own words for it ("illegal
// map value", "end of map not found") name the parser's state, not the author's mistake.
std::optional<std::string> misindented(const SourceText& source, int n) {
  std::string_view text = source.line(n);
  if (n < 2 || !is_structural(text) || text.find('\t') < indent_of(text)) return std::nullopt;
  size_t indent = indent_of(text);
  OpenLevels open = open_levels(source, n);
  if (open.levels.empty()) return std::nullopt;
  if (std::find(open.levels.begin(), open.levels.end(), indent) != open.levels.end()) return std::nullopt;
  if (open.last_opens && indent > open.levels.back()) return std::nullopt;
  std::string at;
  for (auto it = open.levels.rbegin(); it != open.levels.rend(); ++it)
    at += (at.empty() ? "" : it + 1 == open.levels.rend() ? " or " : ", ") + std::to_string(*it);
  return "this line is indented " + std::to_string(indent) + (indent == 1 ? " space" : " spaces") +
         ", which lines up with no key above it (they are at " + at +
         "); keys of one mapping line up, and a key ending its line with ':' opens a deeper one";
}

}  // namespace

YAML::Node parse_yaml_document(const SourceText& source) {
  size_t bad = utf8::find_invalid(source.text());
  if (bad != std::string::npos) {
    int line = 1, col = 1;
    for (size_t i = 0; i < bad; ++i) {
      if (source.text()[i] == '\n') ++line, col = 1;
      else if (!utf8::is_continuation(static_cast<unsigned char>(source.text()[i]))) ++col;
    }
    unsigned char b = static_cast<unsigned char>(source.text()[bad]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", b);
    throw Error(ErrorKind::SpecNotText, std::string("not a YAML text file: ") + (b == 0 ? "NUL byte" : "invalid UTF-8 byte ") +
                                     (b == 0 ? "" : hex) + " (is it a binary file?)",
                source.loc(line, col));
  }
  try {
    return YAML::Load(source.text());
  } catch (const YAML::DeepRecursion& e) {
    throw Error(ErrorKind::SpecTooDeep, "YAML nested too deeply (yaml-cpp stops at " + std::to_string(e.depth()) + " levels)",
                source.loc(e.mark.line + 1, e.mark.column + 1), std::string(source.line(e.mark.line + 1)));
  } catch (const YAML::ParserException& e) {
    int line = e.mark.line + 1;
    if (auto tab = tab_indent_before(source, line))
      throw Error(ErrorKind::SpecYamlSyntax, "invalid YAML: a tab indents this line; YAML indents with spaces only",
                  source.loc(tab->first, tab->second), std::string(source.line(tab->first)));
    // The structure's errors, on the line that breaks the indentation (yaml-cpp may stop on the line after it).
    if (e.msg == "illegal map value" || e.msg == "end of map not found" || e.msg == "end of sequence not found") {
      for (int n : {line, line - 1}) {
        if (n < 1) continue;
        if (auto why = misindented(source, n))
          throw Error(ErrorKind::SpecYamlSyntax, "invalid YAML: " + *why,
                      source.loc(n, static_cast<int>(indent_of(source.line(n))) + 1), std::string(source.line(n)));
      }
    }
    if (e.msg == "illegal map value") {
      std::string_view text = source.line(line);
      size_t first = text.find(": ");
      if (first != std::string_view::npos && text.find(": ", first + 2) != std::string_view::npos)
        throw Error(ErrorKind::SpecYamlSyntax,
                    "invalid YAML: a second ': ' on this line; a value holding ': ' must be quoted (\"...\" or '...')",
                    source.loc(line, e.mark.column + 1), std::string(text));
    }
    throw Error(ErrorKind::SpecYamlSyntax, "invalid YAML: " + e.msg, source.loc(line, e.mark.column + 1),
                std::string(source.line(line)));
  }
}

SpecFile read_spec_file(const std::filesystem::path& file) {
  SpecFile f;
  try {
    f.text = read_file(file, limits::kFileBytes, Pipes::Allowed);
  } catch (const Error& e) {
    throw Error(e.kind(), e.message(), SourceLoc{file.string()});
  }
  f.dir = file.parent_path();
  if (f.dir.empty()) f.dir = ".";
  return f;
}

}  // namespace engine::spec
