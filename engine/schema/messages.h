#pragma once
// valijson's messages in the engine's words, which go back to a model as an observation: what is wrong with the value
// at the pointer, numbers as written ("0", not "0.000000"), and a missing property named by its own pointer.
#include "engine/core/value.h"
#include "engine/schema/schema.h"

namespace engine::schema {

// `v` holds valijson's pointer and description; `value` is the whole value validated.
Violation plain_violation(Violation v, const Value& value);

}  // namespace engine::schema
