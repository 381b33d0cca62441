#pragma once
// A YAML file as a plain Value, with the loaders' bounds (nesting, alias expansion) and `${VAR}` expanded as the
// loaders expand it: what a JSON Schema of the format is checked against.
#include <filesystem>

#include "engine/core/value.h"

namespace engine::spec {

// Throws Error "io.*", "spec.yaml_syntax", "spec.too_large", ... located in the file.
Value read_yaml_value(const std::filesystem::path& file);

}  // namespace engine::spec
