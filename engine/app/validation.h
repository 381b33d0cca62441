#pragma once
// `engine validate`: every static check of a workflow file, no model call, as a result a front end shows or sends
// as JSON (an editor's problems list, a CI annotation).
#include <cstddef>
#include <filesystem>
#include <vector>
#include <string>

#include "engine/core/error.h"
#include "engine/core/value.h"

namespace engine::app {

// Past this many, the rest are probably one mistake's echoes.
inline constexpr size_t kMaxValidationErrors = 20;

struct Validation {
  std::string file;  // as given
  std::vector<Error> errors;  // the problems found, in the order found; none when the workflow builds
  size_t tools = 0;            // what a valid workflow declares
  size_t inputs = 0;

  bool ok() const { return errors.empty(); }
  // {file, ok, tools, inputs} or {file, ok, errors: [{kind, file, line, column, message, source_line}]}
  Value to_json() const;
};

// Loads and builds the workflow at `file` (its tools loaded, its templates and regexes compiled). Never throws for
// what is in the file: its problems are the result's errors, up to `max_errors`. After each one the entry it is in
// is taken out and the rest built again, so the problems of independent entries are all reported; a problem in a
// file the workflow includes is reported alone.
Validation validate_workflow(const std::string& file, size_t max_errors = kMaxValidationErrors);

}  // namespace engine::app
