#pragma once
// JSON Schema's type names for a single value (a workflow input's `type:`): what a value is, whether it is of a
// type, and a text read as one (the command line, a CSV row and a step give every input as text).
#include <optional>
#include <string_view>

#include "engine/core/value.h"

namespace engine::schema {

// The types an input may declare ("null" is not one: an input of nothing is no input).
inline constexpr const char* kValueTypes[] = {"string", "integer", "number", "boolean", "array", "object"};

// "integer" for a whole number (2.0 included, as JSON Schema counts it), else "number", "string", "boolean",
// "array", "object" or "null".
const char* value_type(const Value& v);
// Whether `v` is of `type`: an integer is a number too.
bool has_value_type(const Value& v, std::string_view type);
// `text` read as JSON when that is of `type` (`42` for an integer, `true`, `[1, 2]`), else none. A string type
// needs no reading and gets none.
std::optional<Value> read_as_type(std::string_view text, std::string_view type);
// "an integer", "a string", ...: for messages.
std::string with_article(std::string_view type);

}  // namespace engine::schema
