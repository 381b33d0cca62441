// `engine test` as a developer and a CI job run it: the shipped calculator tests pass, a failing test is shown with
// what the run showed and exits 1, --junit writes XML, and a workflow without tests is a usage error.
#include <catch2/catch.hpp>

#include "engine/core/file.h"
#include "support/test_support.h"

using namespace engine;
using test::run_engine;
using test::shell_quote;

TEST_CASE("engine test runs the tests beside the shipped calculator and they pass", "[e2e][test]") {
  test::TempDir dir;
  auto junit = dir.path() / "junit.xml";
  auto r = run_engine("test workflows/calculator.yaml --junit " + shell_quote(junit.string()));
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("workflows/calculator.test.yaml (workflows/calculator.yaml)\n  PASS  adds_and_multiplies ") == 0);
  CHECK(r.out.find("\n5 tests: 5 passed, 0 failed\n") != std::string::npos);
  std::string xml = read_file(junit);
  CHECK(xml.find("<testsuites name=\"engine test\" tests=\"5\" failures=\"0\"") != std::string::npos);
  CHECK(xml.find("<testcase name=\"scripted_answers\" classname=\"workflows/calculator.yaml\"") != std::string::npos);
}

TEST_CASE("engine test shows a failing test with what the run showed, exits 1, and refuses a workflow without tests", "[e2e][test]") {
  test::TempDir dir;
  auto tests = dir.write("calc.test.yaml",
                         "workflow: " + test::source_path("workflows/calculator.yaml") +
                             "\ntests:\n  off_by_one:\n    inputs: {input: 'What is 2 + 2?'}\n    expect: {output: '5'}\n");
  auto r = run_engine("test " + shell_quote(tests.string()) + " --junit " + shell_quote((dir.path() / "j.xml").string()));
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("  FAIL  off_by_one ") != std::string::npos);
  CHECK(r.out.find("        output: expected '5', got '4'\n1 test: 0 passed, 1 failed\n") != std::string::npos);
  CHECK(read_file(dir.path() / "j.xml").find("<failure message=\"output: expected &apos;5&apos;, got &apos;4&apos;\">") !=
        std::string::npos);

  auto none = run_engine("test workflows/invoice.yaml");
  CHECK(none.exit_code == 2);
  CHECK(none.err == "engine: error[usage]: workflows/invoice.yaml has no tests: write them in workflows/invoice.test.yaml, "
                    "or under `tests:` in it (docs/testing.md)\n");
  auto bad = dir.write("bad.test.yaml", "tests:\n  a: {expect: {outptu: x}}\n");
  auto refused = run_engine("test " + shell_quote(bad.string()));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("unknown key 'outptu' in tests.a.expect (did you mean 'output'?)") != std::string::npos);
}

TEST_CASE("engine test with no file runs every test under the folder, and --filter picks them by name", "[e2e][test]") {
  test::TempDir dir;
  std::string echo = "inputs: {q: q}\nllm: {provider: scripted, scripted: {rules: [{match: 'Q: (?P<q>.*)$', reply: '{{ q }}'}]}}\n"
                     "steps:\n  say: {kind: llm, prompt: 'Q: {{ q }}'}\n";
  dir.write("a/echo.yaml", echo);  // tests beside it
  dir.write("a/echo.test.yaml", "tests:\n  says_hi:\n    inputs: {q: hi}\n    expect: {output: hi}\n");
  dir.write("b/deep/own.yaml", echo + "tests:\n  says_yo:\n    inputs: {q: yo}\n    expect: {output: yo}\n");  // its own
  dir.write("b/deep/plain.yaml", echo);                        // no tests: passed over
  dir.write(".hidden/x.test.yaml", "not: [a test file");        // hidden folders are not looked in
  dir.write("node_modules/y.test.yaml", "not: [a test file");
  auto all = test::run_command("cd " + shell_quote(dir.path().string()) + " && " + shell_quote(ENGINE_BIN) + " test");
  INFO(all.out << all.err);
  CHECK(all.exit_code == 0);
  CHECK(all.out.find("PASS  says_hi") != std::string::npos);
  CHECK(all.out.find("PASS  says_yo") != std::string::npos);
  CHECK(all.out.find("\n2 tests: 2 passed, 0 failed\n") != std::string::npos);
  CHECK(all.out.rfind("a/echo.test.yaml (a/echo.yaml)\n", 0) == 0);  // named from here, without "./"
  // A folder named, and a filter.
  auto some = run_engine("test " + shell_quote(dir.path().string()) + " --filter yo");
  CHECK(some.exit_code == 0);
  CHECK(some.out.find("says_hi") == std::string::npos);
  CHECK(some.out.find("\n1 test: 1 passed, 0 failed\n") != std::string::npos);
  auto none = run_engine("test " + shell_quote(dir.path().string()) + " --filter nope");
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("no test's name holds 'nope'") != std::string::npos);
  auto empty = run_engine("test " + shell_quote((dir.path() / "b" / "deep" / "plain.yaml").string()));
  CHECK(empty.exit_code == 2);
}
