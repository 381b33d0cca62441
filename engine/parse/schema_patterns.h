#pragma once
// The engine's regexes (PCRE2, with match and depth limits) as what checks JSON Schema's `pattern`, so text from
// outside is never matched by an unbounded engine.
#include "engine/schema/schema.h"

namespace engine::parse {

schema::PatternCompiler schema_patterns();

}  // namespace engine::parse
