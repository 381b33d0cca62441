#pragma once
// JSON from outside (a server's answer, a stream event, an --inputs file, a tool's arguments, engine.json.decode)
// read into a Value with a nesting bound. nlohmann's parser is iterative, but copying, printing and converting a
// Value recurse: a value nested 200,000 deep would crash the process later, far from where it came in.
#include <string>
#include <string_view>

#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/value.h"

namespace engine {

struct JsonError {
  bool too_deep = false;
  std::string message;  // "nested deeper than 128 levels", or the syntax error with its line and column
};

// The value of `text`, or a discarded value (is_discarded()) when it is not JSON or nests deeper than `max_depth`;
// `error`, when given, then says which. Messages never quote the text (it may hold anything).
Value parse_json(std::string_view text, JsonError* error = nullptr, int max_depth = limits::kJsonDepth);

// The JSON value of a file, read a buffer at a time with read_file's checks and bound (core/file.h), so the text is
// never held whole beside the value built from it; throws read_file's errors, and reports JSON errors as above.
Value parse_json_file(const std::filesystem::path& path, size_t max_bytes, Pipes pipes, JsonError* error = nullptr,
                      int max_depth = limits::kJsonDepth);

// The nesting depth of a value (a scalar is 0, [] is 1), counted without recursion.
int json_depth(const Value& v);

}  // namespace engine
