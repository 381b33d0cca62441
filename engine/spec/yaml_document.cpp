#include "engine/spec/yaml_document.h"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/text.h"

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

}  // namespace

YAML::Node parse_yaml_document(const SourceText& source) {
  size_t bad = find_invalid_utf8(source.text());
  if (bad != std::string::npos) {
    int line = 1, col = 1;
    for (size_t i = 0; i < bad; ++i) {
      if (source.text()[i] == '\n') ++line, col = 1;
      else if ((static_cast<unsigned char>(source.text()[i]) & 0xC0) != 0x80) ++col;
    }
    unsigned char b = static_cast<unsigned char>(source.text()[bad]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", b);
    throw Error("spec.not_text", std::string("not a YAML text file: ") + (b == 0 ? "NUL byte" : "invalid UTF-8 byte ") +
                                     (b == 0 ? "" : hex) + " (is it a binary file?)",
                source.loc(line, col));
  }
  try {
    return YAML::Load(source.text());
  } catch (const YAML::DeepRecursion& e) {
    throw Error("spec.too_deep", "YAML nested too deeply (yaml-cpp stops at " + std::to_string(e.depth()) + " levels)",
                source.loc(e.mark.line + 1, e.mark.column + 1), std::string(source.line(e.mark.line + 1)));
  } catch (const YAML::ParserException& e) {
    int line = e.mark.line + 1;
    if (auto tab = tab_indent_before(source, line))
      throw Error("spec.yaml_syntax", "invalid YAML: a tab indents this line; YAML indents with spaces only",
                  source.loc(tab->first, tab->second), std::string(source.line(tab->first)));
    throw Error("spec.yaml_syntax", "invalid YAML: " + e.msg, source.loc(line, e.mark.column + 1),
                std::string(source.line(line)));
  }
}

SpecFile read_spec_file(const std::filesystem::path& file) {
  SpecFile f;
  try {
    f.text = read_file(file, kMaxFileBytes, Pipes::Allowed);
  } catch (const Error& e) {
    throw Error(e.kind(), e.message(), SourceLoc{file.string()});
  }
  f.dir = file.parent_path();
  if (f.dir.empty()) f.dir = ".";
  return f;
}

}  // namespace engine::spec
