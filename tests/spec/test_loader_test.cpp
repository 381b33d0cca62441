// Test files: the workflow they test, each test's inputs, model and expectations, and every mistake located.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/spec/test_spec.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::string tests_error(const std::string& yaml) {
  try {
    spec::parse_tests(yaml, "w.test.yaml", ".", "w.yaml");
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a test file: its tests in order, with inputs, replies or a recording, and expectations", "[spec][test]") {
  auto f = spec::parse_tests(
      "tests:\n"
      "  adds:\n    inputs: {input: '1+1'}\n    replies: ['Final Answer: 2', {content: '', tool_calls: [{name: add, arguments: {a: 1}}]}]\n"
      "    expect: {output: '2', tools: [add], stopped_reason: finish, llm_calls: 1, outputs: {answer: '2'}}\n"
      "  replays:\n    recording: rec.jsonl\n    expect: {steps: {ask: ok}, error: llm.unavailable, output_matches: '^2$'}\n",
      "w.test.yaml", "dir", "dir/w.yaml");
  CHECK(f.workflow_file == std::filesystem::path("dir/w.yaml"));
  REQUIRE(f.tests.size() == 2);
  const auto& adds = f.tests[0];
  CHECK(adds.name == "adds");
  CHECK(adds.inputs == Value{{"input", "1+1"}});
  REQUIRE(adds.replies);
  CHECK(adds.replies->size() == 2);
  CHECK((*adds.replies)[1].tool_calls[0].arguments.value == R"({"a":1})");
  CHECK(adds.expect.output == Value("2"));
  CHECK(adds.expect.tools == std::vector<std::string>{"add"});
  CHECK(adds.expect.llm_calls == 1);
  CHECK(adds.expect.outputs.size() == 1);
  const auto& replays = f.tests[1];
  CHECK(replays.recording_file == std::filesystem::path("dir/rec.jsonl"));
  CHECK(replays.expect.steps == std::vector<std::pair<std::string, std::string>>{{"ask", "done"}});  // `ok` is `done`
  CHECK(replays.expect.error->value == "llm.unavailable");
  CHECK(spec::test_file_for("workflows/calculator.yaml") == std::filesystem::path("workflows/calculator.test.yaml"));
  CHECK(spec::parse_tests("workflow: other.yaml\ntests: {a: {expect: {output: x}}}\n", "t.yaml", "d", "d/t.yaml")
            .workflow_file == std::filesystem::path("d/other.yaml"));
}

TEST_CASE("a test file's mistakes are named at their line", "[spec][test]") {
  CHECK(tests_error("tests:\n  a: {expect: {outptu: x}}\n") ==
        "spec.unknown_key: w.test.yaml:2:16: unknown key 'outptu' in tests.a.expect (did you mean 'output'?)");
  CHECK(tests_error("tests:\n  a: {inputs: {x: 1}}\n") ==
        "spec.missing_key: w.test.yaml:2:6: missing required key 'expect' in tests.a");
  CHECK(tests_error("tests:\n  a: {expect: {stopped_reason: done}}\n") ==
        "spec.bad_value: w.test.yaml:2:32: tests.a.expect.stopped_reason must be one of finish, return_direct, "
        "max_iterations, max_execution_time, max_tokens_total, max_cost, error, cancelled, timeout, got 'done'");
  CHECK(tests_error("tests:\n  a: {expect: {error: llm.unavailabel}}\n") ==
        "spec.bad_value: w.test.yaml:2:23: tests.a.expect.error: 'llm.unavailabel' is not an error kind (did you mean "
        "'llm.unavailable'?); docs/errors.md lists them");
  // A value of any length is quoted shortened, never whole.
  CHECK(tests_error("tests:\n  a: {expect: {error: " + std::string(100000, 'x') + "}}\n") ==
        "spec.bad_value: w.test.yaml:2:23: tests.a.expect.error: '" + std::string(80, 'x') +
            "...' is not an error kind; docs/errors.md lists them");
  CHECK(tests_error("tests:\n  a: {replies: [x], recording: r.jsonl, expect: {output: x}}\n") ==
        "spec.conflict: w.test.yaml:2:32: tests.a has both replies and a recording; give one of them");
  CHECK(tests_error("tests:\n  a: {replies: [x], journal: r.journal}\n") ==
        "spec.conflict: w.test.yaml:2:30: tests.a has a journal, which answers every call, and replies; give one of them");
  CHECK(tests_error("tests:\n  a: {recording: r.jsonl, journal: r.journal}\n") ==
        "spec.conflict: w.test.yaml:2:36: tests.a has a journal, which answers every call, and a recording; give one of "
        "them");
  CHECK(tests_error("tests:\n  a: {decisions: [{tool: t, approve: true, reject: no}], expect: {output: x}}\n") ==
        "spec.conflict: w.test.yaml:2:19: tests.a.decisions[0] takes approve: true or reject: REASON, one of them");
  CHECK(tests_error("tests:\n  a: {decisions: [{tool: t, approve: false}], expect: {output: x}}\n") ==
        "spec.bad_value: w.test.yaml:2:38: tests.a.decisions[0].approve is true; a call not approved is rejected: "
        "reject: REASON");
  CHECK(tests_error("tests:\n  a: {decisions: {tool: t}, expect: {output: x}}\n") ==
        "spec.wrong_type: w.test.yaml:2:18: tests.a.decisions must be a list of {tool, approve | reject}");
  // A journal is its own expectation: `expect` may be left out, and then holds nothing.
  spec::TestFileSpec journaled = spec::parse_tests("tests: {a: {journal: r.journal}}\n", "t.yaml", "d", "d/t.yaml");
  CHECK(journaled.tests[0].journal_file == std::filesystem::path("d/r.journal"));
  CHECK_FALSE(journaled.tests[0].expect.output.has_value());
  CHECK(tests_error("tests:\n  a: {expect: {}}\n") ==
        "spec.missing_key: w.test.yaml:2:15: tests.a.expect must say what the run must show");
  CHECK(tests_error("tests:\n  a: {expect: {steps: {ask: finished}}}\n") ==
        "spec.bad_value: w.test.yaml:2:29: tests.a.expect.steps.ask must be one of done, ok, failed, skipped, not_run, "
        "got 'finished'");
  CHECK(tests_error("tests: {}\n") == "spec.missing_key: w.test.yaml:1:8: tests must name at least one test");
  CHECK(tests_error("tests:\n  a: {expect: {tools: add}}\n") ==
        "spec.wrong_type: w.test.yaml:2:23: tests.a.expect.tools must be a list of tool names, in the order they are called");
}

TEST_CASE("tests may be written in the workflow itself under tests:, which a run does not read", "[spec][test]") {
  test::TempDir dir;
  auto with = dir.write("w.yaml", "llm:\n  provider: scripted\n  scripted: {replies: ['Final Answer: x']}\n"
                                  "agent: {}\ntests:\n  a: {inputs: {input: q}, expect: {output: x}}\n");
  auto own = spec::load_tests_in_workflow(with);
  REQUIRE(own);
  CHECK(own->workflow_file == with);
  REQUIRE(own->tests.size() == 1);
  CHECK(own->tests[0].expect.output == Value("x"));
  CHECK_NOTHROW(spec::load_workflow(with));  // the workflow loader takes the key and leaves it
  auto without = dir.write("plain.yaml", "agent: {}\n");
  CHECK(!spec::load_tests_in_workflow(without));
  auto bad = dir.write("bad.yaml", "agent: {}\ntests:\n  a: {expect: {outptu: x}}\n");
  CHECK_THROWS_WITH(spec::load_tests_in_workflow(bad),
                    Catch::Contains("bad.yaml:3:16: unknown key 'outptu' in tests.a.expect"));
}
