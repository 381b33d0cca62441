#include "engine/spec/yaml_value.h"

#include "engine/spec/env_interpolation.h"
#include "engine/spec/spec_file.h"
#include "engine/spec/yaml_document.h"
#include "engine/spec/yaml_reader.h"

namespace engine::spec {

Value read_yaml_value(const std::filesystem::path& file) {
  SpecFile f = read_spec_file(file);
  SourceText source(file.string(), std::move(f.text));
  YAML::Node root = parse_yaml_document(source);
  return YamlReader(source, process_environment()).value(root, "the file");
}

}  // namespace engine::spec
