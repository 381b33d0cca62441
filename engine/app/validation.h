#pragma once
// `engine validate`: every static check of a workflow file, no model call, as a result a front end shows or sends
// as JSON (an editor's problems list, a CI annotation).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/core/error.h"
#include "engine/core/value.h"

namespace engine::app {

struct Validation {
  std::string file;  // as given
  std::optional<Error> error;  // the first problem found; none when the workflow builds
  size_t tools = 0;            // what a valid workflow declares
  size_t inputs = 0;

  bool ok() const { return !error; }
  // {file, ok, tools, inputs} or {file, ok, errors: [{kind, file, line, column, message, source_line}]}
  Value to_json() const;
};

// Loads and builds the workflow at `file` (its tools loaded, its templates and regexes compiled). Never throws for
// what is in the file: the problem is the result's error.
Validation validate_workflow(const std::string& file);

}  // namespace engine::app
