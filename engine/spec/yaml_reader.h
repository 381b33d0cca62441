#pragma once
// Typed, located reads of YAML nodes: every failure names file:line:col and the key path.
// Internal to spec/ (it exposes yaml-cpp types).
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/error.h"
#include "engine/core/source.h"
#include "engine/core/value.h"
#include "engine/spec/env_interpolation.h"
#include "engine/spec/workflow_spec.h"

namespace engine::spec {

class YamlReader {
 public:
  // With `found` (a validation), expect_map notes each unknown key and goes on: the key is not read.
  YamlReader(const SourceText& source, EnvLookup env, Diagnostics* found = nullptr)
      : src_(source), env_(std::move(env)), found_(found) {}

  SourceLoc loc(const YAML::Node& n) const;
  [[noreturn]] void fail(ErrorKind kind, const std::string& message, const YAML::Node& at) const;
  [[noreturn]] void fail_at(ErrorKind kind, const std::string& message, const SourceLoc& at) const;

  // Checks that `node` is a mapping whose keys are all in `allowed`, with no key twice.
  void expect_map(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed) const;
  void expect_present(const YAML::Node& parent, const char* key, const std::string& path) const;

  std::string str(const YAML::Node& n, const std::string& path) const;
  Located<std::string> located_str(const YAML::Node& n, const std::string& path) const;
  // Templates and regexes are taken as written: ${...} is not expanded in them.
  Located<std::string> located_raw(const YAML::Node& n, const std::string& path) const;
  long long integer(const YAML::Node& n, const std::string& path, long long min, long long max) const;
  // A finite number from `min` to `max` (`.inf` and `.nan` are refused: a time or a budget of them overflows when
  // converted, and a deadline computed past the clock's range lies in the past).
  double number(const YAML::Node& n, const std::string& path, double min, double max = 1e15) const;
  bool boolean(const YAML::Node& n, const std::string& path) const;
  // A list of strings; a single string is a list of one.
  std::vector<Located<std::string>> str_list(const YAML::Node& n, const std::string& path) const;
  // Any YAML as a Value, within a node budget (an alias can make a small file expand without bound).
  Value value(const YAML::Node& n, const std::string& path) const;

 private:
  Value value_at(const YAML::Node& n, const std::string& path, int depth, long& budget) const;
  std::string what_is(const YAML::Node& n) const;

  const SourceText& src_;
  EnvLookup env_;
  Diagnostics* found_;
};

}  // namespace engine::spec
