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
  std::string file;  // as given, or where a bare name was found (`engine validate calculator`)
  std::vector<Error> errors;  // the problems found, in the file's order; none when it is valid
  std::string kind = "workflow";  // or "tests" (W.test.yaml), "evaluation" (an evaluation file: *.eval.yaml)
  size_t tools = 0;            // what a valid workflow declares
  size_t inputs = 0;
  size_t tests = 0;            // what a valid test file declares
  size_t evaluators = 0;       // what a valid evaluation file declares
  size_t mcp_servers = 0;      // the MCP servers a workflow names...
  bool connected = false;      // ...and whether they were started (and their tools counted)
  std::vector<std::string> warnings;  // what the build could not check

  bool ok() const { return errors.empty(); }
  // {file, ok, tools, inputs} ({file, ok, tests} / {file, ok, evaluators}) or {file, ok, errors: [{kind, file, line,
  // column, message, source_line}]}
  Value to_json() const;
  std::string summary() const;  // "2 tools, 1 inputs", "5 tests", "7 evaluators"
};

// Loads and builds the workflow at `file` (its tools loaded, its templates and regexes compiled). Never throws for
// what is in the file: its problems are the result's errors, up to `max_errors`. After each one the entry it is in
// is taken out and the rest built again, so the problems of independent entries are all reported; a problem in a
// file the workflow includes is reported alone.
// MCP servers are started (and their tools checked) only when `connect`.
Validation validate_workflow(const std::string& file, size_t max_errors = kMaxValidationErrors, bool connect = false);

// What `engine validate` checks of a file given to it: a test file (its name holds ".test.") loads and its workflow
// builds; an evaluation file (".eval.") loads and its evaluators build; anything else is a workflow.
Validation validate_file(const std::string& file, bool connect = false);

}  // namespace engine::app
