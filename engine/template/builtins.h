#pragma once
// Filters, tests and methods as Jinja2 defines them, over plain Values.
// Filters that must see an undefined input (default) and globals (range, dict) live in the renderer.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/value.h"

namespace engine::tmpl {

struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;

  // The argument at position i, or the keyword `name`, or nullptr.
  const Value* get(size_t i, std::string_view name) const;
};

using FilterFn = Value (*)(const Value& input, const CallArgs& args);
using TestFn = bool (*)(const Value& input, const CallArgs& args);

FilterFn find_filter(std::string_view name);
TestFn find_test(std::string_view name);
const std::vector<std::string>& filter_names();
const std::vector<std::string>& test_names();

// obj.name(args) for the str and dict methods prompts use; throws BuiltinError when there is no such method.
Value call_method(const Value& object, std::string_view name, const CallArgs& args);

}  // namespace engine::tmpl
