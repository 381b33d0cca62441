#pragma once
// `engine test`: a workflow's declared tests, each run offline on the workflow built afresh with the test's model
// (scripted replies or a recording), and what the run showed checked against what the test expects.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/secret_set.h"
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

// Every test under `folder`, as `engine test` with no file (or a folder) finds them: each *.test.yaml (or .yml), and
// each workflow with its own `tests:` and no test file beside it, in name order. Hidden folders and node_modules are
// passed over, symbolic links to folders not followed. Throws Error "usage" past 100,000 entries.
std::vector<std::string> find_tests(const std::filesystem::path& folder);

// Keeps the tests whose name holds `filter` (all when it is empty), and the files that still have one.
void keep_tests_named(std::vector<spec::TestFileSpec>& files, const std::string& filter);

// Runs the tests of a test file in order. A workflow that does not build, inputs it refuses and runs that fail fail
// their test, never the whole file; throws only as throw_stopped when `cancel` stops. The workflow's load reads its
// secrets into `secrets`, which the outcomes' readers mask (the console, the --junit file).
TestFileOutcome run_workflow_tests(const spec::TestFileSpec& tests, const Cancel& cancel,
                                   const std::shared_ptr<SecretSet>& secrets);

// JUnit XML, as CI systems read it: a testsuite per file, a testcase per test, a failure per failed test.
std::string junit_xml(const std::vector<TestFileOutcome>& files);

}  // namespace engine::app
