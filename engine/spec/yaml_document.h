#pragma once
// A YAML file's text parsed into yaml-cpp's tree, with its problems located: text that is not UTF-8 (a binary file),
// YAML syntax, nesting past yaml-cpp's guard. Internal to spec/ (it exposes yaml-cpp types).
#include <yaml-cpp/yaml.h>

#include "engine/core/source.h"
#include "engine/spec/spec_file.h"

namespace engine::spec {

// Throws Error "spec.not_text", "spec.yaml_syntax" or "spec.too_deep" at the place in `source`.
YAML::Node parse_yaml_document(const SourceText& source);

}  // namespace engine::spec
