#pragma once
// `engine test`: a workflow's declared tests, each run offline on the workflow built afresh with the test's model
// (scripted replies or a recording), and what the run showed checked against what the test expects.
#include <string>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/spec/test_spec.h"

namespace engine::app {

struct TestOutcome {
  std::string name;
  std::vector<std::string> failures;  // each: what was expected, and what the run showed
  double elapsed_ms = 0;
  bool passed() const { return failures.empty(); }
};

struct TestFileOutcome {
  std::string file;      // the test file
  std::string workflow;  // the workflow it tests
  std::vector<TestOutcome> tests;
  size_t passed() const;
};

// The tests `arg` names: a test file (its name holds ".test."), or a workflow: the test file beside it (w.yaml ->
// w.test.yaml), else its own `tests:`. Throws Error "usage" for a workflow without tests, or as spec::load_tests.
spec::TestFileSpec load_test_file(const std::string& arg);

// Runs the tests of a test file in order. A workflow that does not build, inputs it refuses and runs that fail fail
// their test, never the whole file; throws only as throw_stopped when `cancel` stops.
TestFileOutcome run_workflow_tests(const spec::TestFileSpec& tests, const Cancel& cancel);

// JUnit XML, as CI systems read it: a testsuite per file, a testcase per test, a failure per failed test.
std::string junit_xml(const std::vector<TestFileOutcome>& files);

}  // namespace engine::app
