// engine test WORKFLOW...: the tests declared beside each workflow (w.test.yaml), run offline, reported as a test
// runner does; --junit FILE for CI.
#include <iostream>

#include "engine/app/workflow_tests.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/commands.h"
#include "engine/core/elapsed.h"
#include "engine/cli/interrupt_watch.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/text.h"

namespace engine::cli {
namespace {

struct TestOptions {
  std::vector<std::string> files;
  std::string junit;
  std::string filter;
};

void print_outcome(const app::TestFileOutcome& f) {
  std::cout << f.file << " (" << f.workflow << ")\n";
  size_t width = 4;
  for (const auto& t : f.tests) width = std::max(width, t.name.size());
  for (const auto& t : f.tests) {
    std::string name = t.name + std::string(width - t.name.size(), ' ');
    std::cout << "  " << (t.passed() ? "PASS  " : "FAIL  ") << name << "  " << milliseconds_text(t.elapsed_ms) << "\n";
    for (const auto& why : t.failures) {
      // Each line of a failure (a located error's quoted line and caret) under the test's name.
      std::string text = terminal_safe(why);
      for (size_t start = 0; start <= text.size();) {
        size_t nl = text.find('\n', start);
        std::cout << "        " << text.substr(start, nl == std::string::npos ? std::string::npos : nl - start) << "\n";
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
  }
}

int run_tests(const TestOptions& o) {
  Cancel cancel;
  InterruptWatch interrupts(cancel);
  std::vector<spec::TestFileSpec> specs;
  // Every file read first. None named: every test under the current folder; a folder: every test under it.
  std::vector<std::string> names = o.files.empty() ? std::vector<std::string>{"."} : o.files;
  for (const auto& arg : names) {
    std::error_code ec;
    if (!std::filesystem::is_directory(arg, ec)) {
      specs.push_back(app::load_test_file(arg));
      continue;
    }
    std::vector<std::string> found = app::find_tests(arg);
    if (found.empty() && !o.files.empty())
      throw Error(ErrorKind::Usage, "no tests under " + arg + " (no *.test.yaml, no workflow with its own tests:)");
    for (const auto& f : found) specs.push_back(app::load_test_file(f));
  }
  if (specs.empty())
    throw Error(ErrorKind::Usage, "no tests found under the current folder: name workflows or test files (engine test "
                         "workflows/calculator.yaml), or write W.test.yaml beside a workflow (docs/testing.md)");
  app::keep_tests_named(specs, o.filter);
  if (specs.empty()) throw Error(ErrorKind::Usage, "no test's name holds '" + printable_excerpt(o.filter, 80) + "' (--filter)");
  std::vector<app::TestFileOutcome> outcomes;
  size_t tests = 0, passed = 0;
  for (const auto& s : specs) {
    try {
      outcomes.push_back(app::run_workflow_tests(s, cancel, console_secrets()));
    } catch (const Error&) {
      if (!interrupts.signal()) throw;
      print_error("stopped before every test had run");
      return interrupted_exit_code(interrupts.signal());
    }
    print_outcome(outcomes.back());
    tests += outcomes.back().tests.size();
    passed += outcomes.back().passed();
  }
  std::cout << tests << (tests == 1 ? " test: " : " tests: ") << passed << " passed, " << tests - passed << " failed"
            << std::endl;
  if (!o.junit.empty()) {
    // Replaced whole (core/file.h): a CI reader never sees half a report, and a symlink planted beside it
    // redirects nothing.
    FileReplacement out(o.junit);
    out.write(console_secrets()->mask(app::junit_xml(outcomes)));  // a file the command writes: masked as the console
    out.commit();
  }
  return passed == tests ? kOk : kRunFailed;
}

}  // namespace

void add_test_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TestOptions>();
  CLI::App* cmd = app.add_subcommand("test", "Run the tests declared beside workflows (W.test.yaml), offline");
  cmd->add_option("files", o->files, "Workflows (their W.test.yaml is run), test files, or folders (every test under "
                                     "them); none: every test under the current folder");
  cmd->add_option("--junit", o->junit, "Also write the results as JUnit XML to FILE, for CI");
  cmd->add_option("--filter", o->filter, "Only the tests whose name holds NAME");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return run_tests(*o); }); });
}

}  // namespace engine::cli
