#pragma once
// A workflow's declared tests (`engine test`): for each, the inputs, the model's answers (scripted replies, a
// recording made with --record, or a stored run's journal; the workflow's own model when none) and what the run must
// show. docs/testing.md
// describes every key.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/source.h"
#include "engine/core/value.h"
#include "engine/spec/workflow_spec.h"

namespace engine::spec {

struct TestExpectations {
  std::optional<Value> output;  // equal to the run's output (text, or a structured answer)
  std::optional<Located<std::string>> output_contains;
  std::optional<Located<std::string>> output_matches;  // a regex, searched
  std::vector<std::pair<std::string, Value>> outputs;  // declared outputs, each equal
  std::optional<std::vector<std::string>> tools;       // the tools called, in order
  std::optional<Located<std::string>> stopped_reason;
  std::vector<std::pair<std::string, std::string>> steps;  // a step's status: ok, failed, skipped, not_run
  std::optional<Located<std::string>> error;              // the kind of the error the run ends with
  std::optional<int> llm_calls;
};

struct WorkflowTestSpec {
  std::string name;
  SourceLoc at;
  Value inputs = Value::object();
  std::optional<std::vector<ScriptedReplySpec>> replies;  // answer the run's model calls in order
  std::optional<Located<std::string>> recording;          // a --record file, relative to the test file
  std::filesystem::path recording_file;
  // A stored run's journal (`engine runs export ID --journal FILE`), relative to the test file: every model and tool
  // call answered from it, and the run expected to end as it did.
  std::optional<Located<std::string>> journal;
  std::filesystem::path journal_file;
  // The decisions a person would make on the calls that ask (docs/people.md), taken in order per tool.
  struct Decision {
    Located<std::string> tool;
    bool approved = false;
    std::string reason;
  };
  std::vector<Decision> decisions;
  TestExpectations expect;
};

struct TestFileSpec {
  std::string display_path;
  std::filesystem::path dir;
  std::shared_ptr<const SourceText> source;
  std::filesystem::path workflow_file;  // the workflow under test
  std::vector<WorkflowTestSpec> tests;
};

// A test file: `workflow:` names the workflow (default: the file's name without `.test`: calculator.test.yaml tests
// calculator.yaml), `tests:` the tests. Throws a located Error.
TestFileSpec load_tests(const std::filesystem::path& file);
TestFileSpec parse_tests(std::string text, std::string display_path, std::filesystem::path dir,
                         std::filesystem::path default_workflow);

// The tests written in a workflow file under `tests:`, with the same keys as a test file's; nothing when it has none.
// Throws a located Error.
std::optional<TestFileSpec> load_tests_in_workflow(const std::filesystem::path& workflow);

// The test file beside a workflow (w.yaml -> w.test.yaml), whether or not it exists.
std::filesystem::path test_file_for(const std::filesystem::path& workflow);

}  // namespace engine::spec
