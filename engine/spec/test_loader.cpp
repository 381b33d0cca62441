#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/core/stopped_reason.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/scripted_replies.h"
#include "engine/spec/test_spec.h"
#include "engine/spec/yaml_document.h"
#include "engine/spec/yaml_reader.h"

namespace engine::spec {

namespace keys {

// The keys this file reads (format_keys.h).
const KeyList kTest = {"description", "inputs", "replies", "recording", "journal", "decisions", "expect"};
const KeyList kTestDecision = {"tool", "approve", "reject"};
const KeyList kTestExpect = {"output", "output_contains", "output_matches", "outputs", "tools",
                             "stopped_reason", "steps", "error", "llm_calls"};
const KeyList kTestFile = {"version", "description", "workflow", "tests"};

}  // namespace keys

namespace {

// The statuses a run reports for a step (`done` for one that finished); `ok` is taken for `done`.
const std::vector<std::string> kStepStatuses = {"done", "ok", "failed", "skipped", "not_run"};

class TestLoader {
 public:
  TestLoader(const SourceText& source, std::filesystem::path dir) : dir_(std::move(dir)), r_(source, process_environment()) {}

  // `in_workflow`: the root is a workflow's, whose other keys are the workflow loader's business.
  TestFileSpec load(const YAML::Node& root, std::filesystem::path default_workflow, bool in_workflow = false) {
    TestFileSpec f;
    if (!root || !root.IsMap()) r_.fail(ErrorKind::SpecWrongType, "a test file is a mapping with `tests:`", root);
    if (!in_workflow) {
      r_.expect_map(root, "the test file", keys::kTestFile);
      if (root["version"]) r_.integer(root["version"], "version", 1, 1);
    }
    f.workflow_file = root["workflow"] && !in_workflow ? dir_ / r_.str(root["workflow"], "workflow")
                                                       : std::move(default_workflow);
    r_.expect_present(root, "tests", "the test file");
    const YAML::Node& tests = root["tests"];
    if (!tests.IsMap()) r_.fail(ErrorKind::SpecWrongType, "tests must be a mapping of names to tests", tests);
    if (tests.size() == 0) r_.fail(ErrorKind::SpecMissingKey, "tests must name at least one test", tests);
    if (tests.size() > limits::kTests) r_.fail(ErrorKind::SpecTooMany, "more than " + std::to_string(limits::kTests) + " tests", tests);
    for (const auto& kv : tests) {
      for (const auto& before : f.tests)
        if (before.name == kv.first.Scalar()) r_.fail(ErrorKind::SpecDuplicateKey, "duplicate key '" + before.name + "' in tests", kv.first);
      f.tests.push_back(test(kv.first, kv.second));
    }
    return f;
  }

 private:
  WorkflowTestSpec test(const YAML::Node& key, const YAML::Node& n) {
    WorkflowTestSpec t;
    t.name = key.Scalar();
    t.at = r_.loc(key);
    std::string at = "tests." + t.name;
    r_.expect_map(n, at, keys::kTest);
    if (n["inputs"]) {
      if (!n["inputs"].IsMap()) r_.fail(ErrorKind::SpecWrongType, at + ".inputs must be a mapping of input names to values", n["inputs"]);
      t.inputs = r_.value(n["inputs"], at + ".inputs");
    }
    if (n["replies"] && n["recording"])
      r_.fail(ErrorKind::SpecConflict, at + " has both replies and a recording; give one of them", n["recording"]);
    if (n["journal"] && (n["replies"] || n["recording"]))
      r_.fail(ErrorKind::SpecConflict, at + " has a journal, which answers every call, and " +
                                           (n["replies"] ? "replies" : "a recording") + "; give one of them",
              n["journal"]);
    if (n["replies"]) t.replies = read_scripted_replies(r_, n["replies"], at + ".replies");
    if (n["recording"]) {
      t.recording = r_.located_str(n["recording"], at + ".recording");
      t.recording_file = dir_ / t.recording->value;
    }
    if (n["journal"]) {
      t.journal = r_.located_str(n["journal"], at + ".journal");
      t.journal_file = dir_ / t.journal->value;
    }
    if (n["decisions"]) {
      const YAML::Node& list = n["decisions"];
      if (!list.IsSequence()) r_.fail(ErrorKind::SpecWrongType, at + ".decisions must be a list of {tool, approve | reject}", list);
      for (size_t i = 0; i < list.size(); ++i) {
        std::string where = at + ".decisions[" + std::to_string(i) + "]";
        const YAML::Node& d = list[i];
        r_.expect_map(d, where, keys::kTestDecision);
        r_.expect_present(d, "tool", where);
        if (bool(d["approve"]) == bool(d["reject"]))
          r_.fail(ErrorKind::SpecConflict, where + " takes approve: true or reject: REASON, one of them", d);
        WorkflowTestSpec::Decision decision{r_.located_str(d["tool"], where + ".tool"), bool(d["approve"]), ""};
        if (d["approve"] && !r_.boolean(d["approve"], where + ".approve"))
          r_.fail(ErrorKind::SpecBadValue, where + ".approve is true; a call not approved is rejected: reject: REASON", d["approve"]);
        if (d["reject"]) decision.reason = r_.str(d["reject"], where + ".reject");
        t.decisions.push_back(std::move(decision));
      }
    }
    // A journal is its own expectation (the run ends as it recorded); `expect` may add to it.
    if (!t.journal || n["expect"]) {
      r_.expect_present(n, "expect", at);
      t.expect = expectations(n["expect"], at + ".expect");
    }
    return t;
  }

  TestExpectations expectations(const YAML::Node& n, const std::string& at) {
    TestExpectations e;
    r_.expect_map(n, at, keys::kTestExpect);
    if (n.size() == 0) r_.fail(ErrorKind::SpecMissingKey, at + " must say what the run must show", n);
    if (n["output"]) e.output = r_.value(n["output"], at + ".output");
    if (n["output_contains"]) e.output_contains = r_.located_str(n["output_contains"], at + ".output_contains");
    if (n["output_matches"]) e.output_matches = r_.located_raw(n["output_matches"], at + ".output_matches");
    if (n["outputs"]) {
      if (!n["outputs"].IsMap()) r_.fail(ErrorKind::SpecWrongType, at + ".outputs must be a mapping of output names to values", n["outputs"]);
      for (const auto& kv : n["outputs"])
        e.outputs.emplace_back(kv.first.Scalar(), r_.value(kv.second, at + ".outputs." + kv.first.Scalar()));
    }
    if (n["tools"]) {
      if (!n["tools"].IsSequence()) r_.fail(ErrorKind::SpecWrongType, at + ".tools must be a list of tool names, in the order they are called", n["tools"]);
      e.tools.emplace();
      for (const auto& name : r_.str_list(n["tools"], at + ".tools")) e.tools->push_back(name.value);
    }
    if (n["stopped_reason"]) {
      e.stopped_reason = r_.located_str(n["stopped_reason"], at + ".stopped_reason");
      one_of(e.stopped_reason->value, stopped_reason_names(), at + ".stopped_reason", n["stopped_reason"]);
    }
    if (n["steps"]) {
      if (!n["steps"].IsMap()) r_.fail(ErrorKind::SpecWrongType, at + ".steps must be a mapping of step names to statuses", n["steps"]);
      for (const auto& kv : n["steps"]) {
        std::string status = r_.str(kv.second, at + ".steps." + kv.first.Scalar());
        one_of(status, kStepStatuses, at + ".steps." + kv.first.Scalar(), kv.second);
        e.steps.emplace_back(kv.first.Scalar(), status == "ok" ? "done" : status);
      }
    }
    if (n["error"]) {
      e.error = r_.located_str(n["error"], at + ".error");
      // Too many kinds to list them all: the nearest, and where they are.
      if (!error_kind_named(e.error->value))
        r_.fail(ErrorKind::SpecBadValue, at + ".error: " + quote_excerpt(e.error->value) + " is not an error kind" +
                                             did_you_mean(e.error->value, error_kind_names()) +
                                             "; docs/errors.md lists them",
                n["error"]);
    }
    if (n["llm_calls"]) e.llm_calls = static_cast<int>(r_.integer(n["llm_calls"], at + ".llm_calls", 0, 1'000'000));
    return e;
  }

  void one_of(const std::string& value, const std::vector<std::string>& allowed, const std::string& at, const YAML::Node& n) {
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      r_.fail(ErrorKind::SpecBadValue, at + " must be one of " + join(allowed, ", ") + ", got '" + value + "'" +
                                    did_you_mean(value, allowed), n);
  }

  std::filesystem::path dir_;
  YamlReader r_;
};

}  // namespace

std::filesystem::path test_file_for(const std::filesystem::path& workflow) {
  std::filesystem::path file = workflow;
  file.replace_extension();
  file += ".test" + workflow.extension().string();
  return file;
}

TestFileSpec parse_tests(std::string text, std::string display_path, std::filesystem::path dir,
                         std::filesystem::path default_workflow) {
  auto source = std::make_shared<SourceText>(display_path, std::move(text));
  YAML::Node root = parse_yaml_document(*source);
  TestFileSpec f = TestLoader(*source, dir).load(root, std::move(default_workflow));
  f.display_path = std::move(display_path);
  f.dir = std::move(dir);
  f.source = std::move(source);
  return f;
}

std::optional<TestFileSpec> load_tests_in_workflow(const std::filesystem::path& workflow) {
  SpecFile f = read_spec_file(workflow);
  auto source = std::make_shared<SourceText>(workflow.string(), std::move(f.text));
  YAML::Node root = parse_yaml_document(*source);
  if (!root.IsMap() || !root["tests"]) return std::nullopt;
  TestFileSpec tests = TestLoader(*source, f.dir).load(root, workflow, true);
  tests.display_path = workflow.string();
  tests.dir = f.dir;
  tests.source = std::move(source);
  return tests;
}

TestFileSpec load_tests(const std::filesystem::path& file) {
  SpecFile f = read_spec_file(file);  // named on the command line: may be a pipe
  // calculator.test.yaml tests calculator.yaml
  std::string name = file.filename().string();
  size_t dot = name.find(".test.");
  std::filesystem::path workflow = f.dir / (dot == std::string::npos ? name : name.substr(0, dot) + name.substr(dot + 5));
  return parse_tests(std::move(f.text), file.string(), f.dir, workflow);
}

}  // namespace engine::spec
