#include "engine/spec/yaml_document.h"

#include <yaml-cpp/depthguard.h>

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/text.h"

namespace engine::spec {

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
    throw Error("spec.yaml_syntax", "invalid YAML: " + e.msg, source.loc(e.mark.line + 1, e.mark.column + 1),
                std::string(source.line(e.mark.line + 1)));
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
