#include "engine/parse/schema_patterns.h"

#include "engine/parse/regex.h"

namespace engine::parse {

schema::PatternCompiler schema_patterns() {
  return [](const std::string& pattern) -> schema::Matcher {
    Regex regex = Regex::compile(pattern);  // JSON Schema's patterns are searched for, not anchored
    return [regex](std::string_view text) { return regex.search(text).has_value(); };
  };
}

}  // namespace engine::parse
