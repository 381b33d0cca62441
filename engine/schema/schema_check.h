#pragma once
// The walk over a schema that checks every keyword and writes the copy valijson compiles. In that copy the keywords
// whose checks valijson would do with std::regex or by reading strings as C strings (`pattern`, `minLength`,
// `maxLength`, `uniqueItems`) carry the engine's names, so engine_constraints.cpp checks them instead; `format`
// and `$id` are left out (annotations here).
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/schema/schema.h"

namespace engine::schema {

inline constexpr const char* kEnginePattern = "x-engine-pattern";
inline constexpr const char* kEngineMinLength = "x-engine-minLength";
inline constexpr const char* kEngineMaxLength = "x-engine-maxLength";
inline constexpr const char* kEngineUniqueItems = "x-engine-uniqueItems";
// Added to every subschema of the copy: each time valijson applies one, a step of the validation's budget is taken.
inline constexpr const char* kEngineStep = "x-engine-step";

struct CheckedSchema {
  std::vector<Violation> problems;
  nlohmann::json rewritten;  // meaningful only without problems
};

CheckedSchema check_and_rewrite(const Value& schema, const SchemaOptions& options);

// "a string", "an integer", "null" ... for messages.
const char* json_type_name(const Value& v);


}  // namespace engine::schema
