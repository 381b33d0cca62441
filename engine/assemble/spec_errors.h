#pragma once
// Errors found while assembling, placed at the YAML key that caused them.
#include <string>

#include "engine/core/error.h"
#include "engine/spec/workflow_spec.h"

namespace engine::assemble {

// The workflow file's line at `loc`, for the caret; empty when the location has no line.
inline std::string quoted_line(const spec::WorkflowSpec& s, const SourceLoc& loc) {
  return loc.line > 0 && s.source ? std::string(s.source->line(loc.line)) : std::string();
}

// `e` again, prefixed with the key path and located at the key.
inline Error at_key(const Error& e, const std::string& key, const SourceLoc& loc, const spec::WorkflowSpec& s) {
  return Error(e.kind(), key + ": " + e.message(), loc, quoted_line(s, loc));
}

}  // namespace engine::assemble
