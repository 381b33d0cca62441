#pragma once
// What every section's reader of a workflow file shares: the typed YAML reads, the file's folder and reach, the load's
// options, and the problems found so far. Internal to spec/ (it exposes yaml-cpp types).
//
// Each section of the format has its reader (section_readers.h). A reader reads one key at a time through key():
// in a validation (LoadOptions::found set) a problem in one key is noted and the next key read, so that one pass
// reports every problem with its place; in a run the first problem is thrown.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/file_scope.h"
#include "engine/spec/workflow_spec.h"
#include "engine/spec/yaml_reader.h"

namespace engine::spec {

class SectionReader {
 public:
  SectionReader(const SourceText& src, std::string display, std::filesystem::path dir, const FileScope& scope,
                const LoadOptions& options);

  YamlReader r;
  const std::string display;  // the file as named in messages
  const std::filesystem::path dir;
  const FileScope& scope;
  const LoadOptions& options;
  std::vector<std::string> seen_steps;  // every step name of the file, loops' bodies included

  Diagnostics* found() const { return options.found; }
  // The problems noted so far: a check across a block's keys is made only when each key read well.
  size_t problems() const { return options.found ? options.found->count() : 0; }

  // Runs `read`; false when it found a problem and the problem was noted (a validation).
  template <class F>
  bool entry(F&& read) {
    return noted(options.found, std::forward<F>(read));
  }
  // Reads the key `name` of the mapping `n` with `read(value)` when it is there.
  template <class F>
  void key(const YAML::Node& n, const char* name, F&& read) {
    if (const YAML::Node v = n[name]) entry([&] { read(v); });
  }

  // Typed reads beyond YamlReader's, each failing with the key path and the node's place.
  Located<std::string> one_of(const YAML::Node& n, const std::string& path, const std::vector<std::string>& allowed);
  void check_name(const std::string& name, const char* what, const YAML::Node& at) const;
  // A time as seconds: a number, or a number with its unit ("30s", "500ms", "2m"), as docker and cagent write them.
  double seconds(const YAML::Node& n, const std::string& path) const;
  // A JSON Schema written in the file, checked here with its first problem located at its node. Its patterns are
  // compiled when the workflow is built: spec/ has no regex engine.
  Value json_schema(const YAML::Node& n, const std::string& path) const;
  // A template: a string (inline) or {file: PATH} relative to the workflow file.
  TemplateSource template_source(const YAML::Node& n, const std::string& path);
  // A file the workflow names: beside it, or (a bare name) on the search path; an error lists where it looked.
  std::filesystem::path within_scope(const std::string& name, const std::string& path, const YAML::Node& at) const;
  // Another workflow file, named as a step or a tool: loaded whole (its own errors at its own lines, the first of
  // them only), with the same search path; one that leads back to a file being loaded is refused with the chain.
  std::shared_ptr<const WorkflowSpec> sub_workflow(const YAML::Node& n, const std::string& path) const;
  // `allow:` beside a Lua tool, a lua step, a Lua parser or a built-in: what it may reach (grants.h).
  AllowSpec allow(const YAML::Node& n, const std::string& path);
  LuaLimitsSpec lua_limits(const YAML::Node& lim, const std::string& path);
};

// Whether a scalar's value was read from the environment (${VAR}): such a value in a header or a server's env is
// a key.
bool read_from_environment(const YAML::Node& n);

// "'a', 'b'": the values a key may take, for messages.
std::string quoted_list(const std::vector<std::string>& options);

}  // namespace engine::spec
