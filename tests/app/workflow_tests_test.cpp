// Declared tests run on a workflow: each expectation that does not hold is named with what the run showed, a
// workflow that does not build fails its tests (not the command), and JUnit XML is escaped.
#include <catch2/catch.hpp>

#include "engine/app/workflow_tests.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// An agent whose model answers from the test's replies; a calculator-like echo tool.
const char* const kAgentWorkflow =
    "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: from the workflow']\n"
    "tools:\n  - {builtin: echo}\n"
    "outputs:\n  answer: {value: '{{ output }}'}\nagent: {max_iterations: 3}\n";

app::TestFileOutcome outcome_of(const test::TempDir& dir, const std::string& tests_yaml,
                                std::shared_ptr<SecretSet> secrets = std::make_shared<SecretSet>()) {
  auto file = dir.write("w.test.yaml", tests_yaml);
  Cancel cancel;
  return app::run_workflow_tests(spec::load_tests(file), cancel, secrets);
}

}  // namespace

TEST_CASE("workflow tests: passing ones pass, and each failed expectation says what the run showed", "[app][test]") {
  test::TempDir dir;
  dir.write("w.yaml", kAgentWorkflow);
  auto out = outcome_of(dir,
                        "tests:\n"
                        "  own_model:\n    inputs: {input: hi}\n    expect: {output: from the workflow, llm_calls: 1}\n"
                        "  replies:\n    inputs: {input: hi}\n"
                        "    replies: [\"Action: echo\\nAction Input: ping\", 'Final Answer: pong']\n"
                        "    expect: {output: pong, tools: [echo], outputs: {answer: pong}, stopped_reason: finish}\n"
                        "  wrong:\n    inputs: {input: hi}\n    replies: ['Final Answer: 41']\n"
                        "    expect: {output: '42', output_contains: '4 2', output_matches: '^4[0-1]$', tools: [echo],\n"
                        "             outputs: {answer: '42', missing: x}, stopped_reason: max_iterations, llm_calls: 3,\n"
                        "             error: llm.unavailable, steps: {ask: ok}}\n");
  CHECK(out.workflow == (dir.path() / "w.yaml").string());
  REQUIRE(out.tests.size() == 3);
  CHECK(out.tests[0].passed());
  CHECK(out.tests[1].passed());
  CHECK(out.passed() == 2);
  CHECK(out.tests[2].failures == std::vector<std::string>{
                                     "error: expected an error of kind llm.unavailable, and the run ended ok",
                                     "stopped_reason: expected max_iterations, got finish",
                                     "output: expected '42', got '41'",
                                     "output: expected it to contain '4 2', got '41'",
                                     "outputs.answer: expected '42', got '41'",
                                     "outputs.missing: the run has no such output",
                                     "tools: expected [echo], called []",
                                     "steps.ask: no such step in the run",
                                     "llm_calls: expected 3, got 1"});
}

TEST_CASE("workflow tests: a run that fails fails its test with the error, unless the test expects it", "[app][test]") {
  test::TempDir dir;
  dir.write("w.yaml", kAgentWorkflow);
  auto out = outcome_of(dir,
                        "tests:\n"
                        "  unexpected:\n    inputs: {input: hi}\n    replies: ['Action: nope\\nAction Input: x']\n"
                        "    expect: {output: x}\n"
                        "  missing_input:\n    expect: {output: x}\n"
                        "  expected:\n    inputs: {input: hi}\n    recording: none.jsonl\n    expect: {error: io.read_failed}\n");
  REQUIRE(out.tests.size() == 3);
  REQUIRE(!out.tests[0].passed());
  CHECK(out.tests[0].failures.back() == "output: expected 'x', got ''");
  REQUIRE(out.tests[1].failures.size() == 1);
  CHECK(out.tests[1].failures[0].find("input") != std::string::npos);
  // A recording that does not exist fails the build of that test's workflow: an error, not a run's.
  REQUIRE(out.tests[2].failures.size() == 1);
  CHECK(out.tests[2].failures[0].find("none.jsonl") != std::string::npos);
}

TEST_CASE("workflow tests: a workflow that does not load fails every test with its error", "[app][test]") {
  test::TempDir dir;
  dir.write("w.yaml", "inputs: {input: q}\nllm: {provider: scripted, scripted: {replies: [x]}}\nagent: {stopp: x}\n");
  auto out = outcome_of(dir, "tests:\n  a: {expect: {output: x}}\n  b: {expect: {output: y}}\n");
  REQUIRE(out.tests.size() == 2);
  CHECK(out.tests[0].failures[0].find("unknown key 'stopp' in agent") != std::string::npos);
  CHECK(out.tests[1].failures == out.tests[0].failures);
}

TEST_CASE("JUnit XML: a suite per file, a case per test, failures escaped", "[app][test]") {
  app::TestFileOutcome f{"w.test.yaml", "w.yaml", {{"ok", {}, 1500}, {"bad <one>", {"output: expected '<a & b>'", "second\x01"}, 2}}};
  std::string xml = app::junit_xml({f});
  CHECK(xml ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"engine test\" tests=\"2\" failures=\"1\" time=\"1.502\">\n"
        "  <testsuite name=\"w.test.yaml\" tests=\"2\" failures=\"1\" time=\"1.502\">\n"
        "    <testcase name=\"ok\" classname=\"w.yaml\" time=\"1.500\"/>\n"
        "    <testcase name=\"bad &lt;one&gt;\" classname=\"w.yaml\" time=\"0.002\">\n"
        "      <failure message=\"output: expected &apos;&lt;a &amp; b&gt;&apos;\">output: expected &apos;&lt;a &amp; "
        "b&gt;&apos;\nsecond?</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

// An output is anything a model wrote: the report stays well-formed XML 1.0 whatever bytes it holds.
TEST_CASE("JUnit XML: invalid UTF-8 and the characters XML excludes become U+FFFD", "[app][test]") {
  app::TestFileOutcome f{"w.test.yaml", "w.yaml", {{"t", {"got '\xff\xfe ok \xc3\x28 \xed\xa0\x80 \xef\xbf\xbf \xe2\x82\xac'"}, 1}}};
  std::string xml = app::junit_xml({f});
  CHECK(utf8::find_invalid(xml) == std::string::npos);
  CHECK(xml.find("got &apos;\xEF\xBF\xBD\xEF\xBF\xBD ok \xEF\xBF\xBD( \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD "
                 "\xEF\xBF\xBD \xE2\x82\xAC&apos;") != std::string::npos);
}

// The outcomes are masked where they leave (the console, the --junit file: tests/e2e/secrets_test.cpp); the set
// those mask must hold what the load read, the usual key variables among them, though the workflow never loaded.
TEST_CASE("workflow tests: the load of a workflow that does not load reads the usual keys into the set given",
          "[app][test]") {
  const std::string key = "sk-test-load-error-0123456789abcdef";
  setenv("OPENAI_API_KEY", key.c_str(), 1);
  test::TempDir dir;
  dir.write("w.yaml", "inputs: {input: q}\nllm: {provider: scripted, scripted: {replies: [x]}}\nagent: {" + key + ": x}\n");
  auto secrets = std::make_shared<SecretSet>();
  auto out = outcome_of(dir, "tests:\n  a: {expect: {output: x}}\n", secrets);
  unsetenv("OPENAI_API_KEY");
  REQUIRE(out.tests.size() == 1);
  std::string shown = secrets->mask(out.tests[0].failures[0]);
  CHECK(shown.find("unknown key '***' in agent") != std::string::npos);
  CHECK(!test::holds_piece_of_key(shown, key));
  CHECK(!test::holds_piece_of_key(secrets->mask(app::junit_xml({out})), key));
}

TEST_CASE("workflow tests: a workflow's own tests: are run when no test file is beside it", "[app][test]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", std::string(kAgentWorkflow) + "tests:\n  own: {inputs: {input: hi}, expect: {output: from the workflow}}\n");
  spec::TestFileSpec tests = app::load_test_file(w.string());
  REQUIRE(tests.tests.size() == 1);
  Cancel cancel;
  CHECK(app::run_workflow_tests(tests, cancel, std::make_shared<SecretSet>()).tests[0].passed());
  // A test file beside it comes first.
  dir.write("w.test.yaml", "tests:\n  beside: {inputs: {input: hi}, expect: {output: x}}\n");
  CHECK(app::load_test_file(w.string()).tests[0].name == "beside");
  auto plain = dir.write("plain.yaml", kAgentWorkflow);
  CHECK_THROWS_WITH(app::load_test_file(plain.string()),
                    plain.string() + " has no tests: write them in " + (dir.path() / "plain.test.yaml").string() +
                        ", or under `tests:` in it (docs/testing.md)");
}

TEST_CASE("workflow tests: what a failed expectation quotes is masked by the set its workflow read the keys into",
          "[app][test]") {
  const std::string key = "sk-test-report-secret-0123456789";
  setenv("ENGINE_TEST_REPORT_KEY", key.c_str(), 1);
  test::TempDir dir;
  dir.write("w.yaml", "inputs:\n  input: q\nllm:\n  provider: scripted\n  api_key_env: ENGINE_TEST_REPORT_KEY\n"
                      "  scripted: {replies: ['Final Answer: the key is " + key + "']}\nagent: {}\n");
  auto secrets = std::make_shared<SecretSet>();
  auto out = outcome_of(dir, "tests:\n  leaks: {inputs: {input: hi}, expect: {output: nothing}}\n", secrets);
  unsetenv("ENGINE_TEST_REPORT_KEY");
  REQUIRE(out.tests.size() == 1);
  REQUIRE(out.tests[0].failures.size() == 1);
  // Masked where the report leaves (the console, the --junit file) by the set the load read the key into.
  CHECK(secrets->mask(out.tests[0].failures[0]) == "output: expected 'nothing', got 'the key is ***'");
}

// A run reports a finished step as `done`; a test asserts it in the same word (or `ok`).
TEST_CASE("workflow tests: expect.steps takes the status a run reports for a finished step, done", "[app][test]") {
  test::TempDir dir;
  dir.write("w.yaml", "inputs:\n  q: q\nsteps:\n  say: {kind: template, template: 'hi {{ inputs.q }}'}\n"
                      "  never: {kind: template, template: x, when: 'false'}\n");
  auto out = outcome_of(dir, "tests:\n  a: {inputs: {q: x}, expect: {steps: {say: done, never: skipped}}}\n"
                             "  b: {inputs: {q: x}, expect: {steps: {say: ok}}}\n"
                             "  c: {inputs: {q: x}, expect: {steps: {say: failed}}}\n");
  REQUIRE(out.tests.size() == 3);
  CHECK(out.tests[0].passed());
  CHECK(out.tests[1].passed());
  CHECK(out.tests[2].failures == std::vector<std::string>{"steps.say: expected failed, got done"});
}

TEST_CASE("workflow tests: a value and a text that read alike are told apart by their types", "[app][test]") {
  test::TempDir dir;
  dir.write("w.yaml", kAgentWorkflow);
  auto out = outcome_of(dir, "tests:\n  typed:\n    inputs: {input: hi}\n    replies: ['Final Answer: 18']\n"
                             "    expect: {outputs: {answer: 18}}\n");
  REQUIRE(out.tests.size() == 1);
  CHECK(out.tests[0].failures ==
        std::vector<std::string>{"outputs.answer: expected '18' (a number), got '18' (text)"});
}
