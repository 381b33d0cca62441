#pragma once
// The methods of Python's str that a template may call beyond the common few builtins.cpp answers itself:
// casefold, center, count, find, index, is*, ljust, partition, rsplit, splitlines, zfill, removeprefix, ...
// Positions and widths count characters (code points), as Python does.
#include <optional>
#include <string>
#include <string_view>

#include "engine/template/builtins.h"

namespace engine::tmpl {

// s.name(args), or nothing when str has no such method here. Throws BuiltinError for bad arguments.
std::optional<Value> call_str_method(const std::string& s, std::string_view name, const CallArgs& args);

}  // namespace engine::tmpl
