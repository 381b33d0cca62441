#pragma once
// What an input's type is, as tools and clients are shown it, and a given value made to fit a declared type.
#include "engine/core/value.h"
#include "engine/workflow/executor.h"

namespace engine::workflow {

// Its JSON Schema type: declared, else its default's, else "string" (what the command line, a template and a chat
// give); nullptr for a default of null (any value).
const char* schema_type(const Input& input);

// `given` as the input's declared type: itself when it is of the type (or none is declared), a text read as JSON of
// it (`"42"` for an integer). Throws Error "input.wrong_type" naming the input, its type and what was given.
Value conform_input(const Input& input, Value given);

}  // namespace engine::workflow
