#pragma once
// The keywords the engine checks itself rather than valijson (schema_check.h says why), as valijson constraint
// builders for the renamed keywords.
#include <valijson/schema_parser.hpp>

#include "engine/schema/schema.h"

namespace engine::schema {

// Past this many items an array under uniqueItems is reported rather than compared pair by pair.
inline constexpr size_t kMaxUniqueItems = 2000;

// Gives `parser` the builders of the engine's keywords (it owns and deletes them).
void add_engine_constraints(valijson::SchemaParser& parser, const SchemaOptions& options);

}  // namespace engine::schema
