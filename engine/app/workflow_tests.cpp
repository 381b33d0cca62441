#include "engine/app/workflow_tests.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <cstdio>

#include "engine/app/journal_fixture.h"
#include "engine/assemble/build_executor.h"
#include "engine/core/elapsed.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "engine/parse/regex.h"
#include "engine/spec/search_path.h"
#include "engine/store/replay_journal.h"

namespace engine::app {
namespace {

using Clock = std::chrono::steady_clock;

std::string shown(const Value& v) { return quote_excerpt(v.is_string() ? v.get<std::string>() : to_json_text(v), 120); }

const char* type_word(const Value& v) {
  return v.is_string() ? "text" : v.is_number() ? "a number" : v.is_boolean() ? "a boolean" : v.is_null() ? "null"
         : v.is_array() ? "a list" : "an object";
}

// "expected X, got Y"; when the two read alike ('18' the text and 18 the number), with their types.
std::string expected_got(const Value& expected, const Value& actual) {
  std::string e = shown(expected), a = shown(actual);
  if (e != a) return "expected " + e + ", got " + a;
  return "expected " + e + " (" + type_word(expected) + "), got " + a + " (" + type_word(actual) + ")";
}

// Texts compare trimmed (a YAML block scalar ends with a newline); other values as JSON.
bool same(const Value& expected, const Value& actual) {
  if (expected.is_string() && actual.is_string())
    return trim(expected.get_ref<const std::string&>()) == trim(actual.get_ref<const std::string&>());
  if (expected.is_number() && actual.is_number()) return expected.get<double>() == actual.get<double>();
  return expected == actual;
}

// The test's model in place of every model the workflow names, as --llm replaces them.
void use_test_model(spec::WorkflowSpec& w, const spec::WorkflowTestSpec& t) {
  if (!t.replies && !t.recording) return;
  auto replace = [&](spec::LlmSpec& l) {
    if (t.replies) {
      l.provider = {"scripted", {}};
      l.replies = *t.replies;
      l.rules.clear();
      l.latency_ms = 0;
    } else {
      l.provider = {"replay", {}};
      l.recording = *t.recording;
      l.recording_file = t.recording_file;
    }
  };
  replace(w.llm);
  spec::for_each_step(w.steps, [&](spec::StepSpec& st) {
    if (st.llm) replace(*st.llm);
  });
}

std::vector<std::string> tools_called(const agent::RunResult& r) {
  std::vector<std::string> out;
  for (const auto& st : r.intermediate_steps) out.push_back(st.action.tool);
  return out;
}

void check(const spec::TestExpectations& e, const agent::RunResult& r, std::vector<std::string>& failures) {
  if (!r.ok() && !e.error && !e.stopped_reason) failures.push_back("the run failed: " + r.error->formatted());
  if (e.error) {
    if (r.ok()) failures.push_back("error: expected an error of kind " + e.error->value + ", and the run ended ok");
    else if (name_of(r.error->kind) != e.error->value)
      failures.push_back("error: expected " + e.error->value + ", got " + std::string(name_of(r.error->kind)) + ": " +
                         r.error->message);
  }
  if (e.stopped_reason && name_of(r.stopped_reason) != e.stopped_reason->value)
    failures.push_back("stopped_reason: expected " + e.stopped_reason->value + ", got " + std::string(name_of(r.stopped_reason)));
  if (e.output && !same(*e.output, r.output))
    failures.push_back("output: " + expected_got(*e.output, r.output));
  std::string text = r.output.is_string() ? r.output.get<std::string>() : to_json_text(r.output);
  if (e.output_contains && text.find(e.output_contains->value) == std::string::npos)
    failures.push_back("output: expected it to contain " + shown(e.output_contains->value) + ", got " + shown(r.output));
  if (e.output_matches) {
    try {
      if (!parse::Regex::compile(e.output_matches->value).search(text))
        failures.push_back("output: expected it to match /" + e.output_matches->value + "/, got " + shown(r.output));
    } catch (const Error& err) {
      failures.push_back("output_matches: " + err.message());
    }
  }
  for (const auto& [name, value] : e.outputs) {
    auto it = r.outputs.find(name);
    if (it == r.outputs.end()) failures.push_back("outputs." + name + ": the run has no such output");
    else if (!same(value, *it)) failures.push_back("outputs." + name + ": " + expected_got(value, *it));
  }
  if (e.tools) {
    std::vector<std::string> called = tools_called(r);
    if (called != *e.tools)
      failures.push_back("tools: expected [" + join(*e.tools, ", ") + "], called [" + join(called, ", ") + "]");
  }
  for (const auto& [step, status] : e.steps) {
    auto it = r.steps.find(step);
    std::string got = it == r.steps.end() ? "" : it->value("status", "");
    if (got.empty()) failures.push_back("steps." + step + ": no such step in the run");
    else if (got != status) failures.push_back("steps." + step + ": expected " + status + ", got " + got);
  }
  if (e.llm_calls && r.llm_calls != *e.llm_calls)
    failures.push_back("llm_calls: expected " + std::to_string(*e.llm_calls) + ", got " + std::to_string(r.llm_calls));
}

// A run made against a stored run's journal ends as it did: each step as recorded, the same answer, nothing asked
// otherwise than the journal was.
void check_against_journal(const JournalFixture& fixture, const store::ReplayJournal& journal,
                           const spec::WorkflowTestSpec& t, const agent::RunResult& r, std::vector<std::string>& failures) {
  std::vector<std::string> asked = journal.asked_otherwise();
  if (!asked.empty())
    failures.push_back("the run asked otherwise than its journal (" + t.journal->value + ") recorded at " +
                       join(asked, ", ") + ": the workflow or its inputs changed since run " + fixture.run);
  for (const auto& d : journal.differences())
    failures.push_back("step " + d.step + ": recorded " + (d.recorded.is_null() ? "not run" : shown(d.recorded)) +
                       ", now " + (d.replayed.is_null() ? "not run" : shown(d.replayed)));
  if (t.expect.output || t.expect.error || t.expect.stopped_reason) return;  // the test says what the answer must be
  for (auto it = fixture.entries.rbegin(); it != fixture.entries.rend(); ++it) {
    if (it->entry.kind != JournalKind::RunEnd) continue;
    const Value& answer = it->entry.value;
    if (answer.contains("output") && !same(answer["output"], r.output))
      failures.push_back("output: " + expected_got(answer["output"], r.output) + " (as run " + fixture.run + " answered)");
    break;
  }
}

TestOutcome run_one(const spec::WorkflowSpec& workflow, const spec::WorkflowTestSpec& t, const Cancel& cancel) {
  TestOutcome out{t.name, {}, 0};
  auto start = Clock::now();
  try {
    spec::WorkflowSpec w = workflow;
    use_test_model(w, t);
    auto executor = assemble::build_executor(w);
    std::optional<JournalFixture> fixture;
    std::optional<store::ReplayJournal> journal;
    agent::RunOptions options{.cancel = &cancel};
    Value given = t.inputs;
    if (t.journal) {
      fixture = read_journal_fixture(t.journal_file);
      journal.emplace(fixture->run, fixture->entries);
      options.journal = JournalScope{&*journal, ""};
      if (given.empty()) given = fixture->inputs;  // the stored run's, unless the test gives its own
    }
    Value inputs = executor->resolve_inputs(given);
    // A call that asks takes the test's next decision for its tool; none left fails the run, saying so.
    std::vector<bool> used(t.decisions.size(), false);
    std::mutex used_mu;  // steps that run at once may ask at once
    ToolDecider decide = [&](std::string_view tool, const Value&) -> std::optional<ToolDecision> {
      std::lock_guard lock(used_mu);
      for (size_t i = 0; i < t.decisions.size(); ++i)
        if (!used[i] && t.decisions[i].tool.value == tool) {
          used[i] = true;
          return ToolDecision{t.decisions[i].approved, t.decisions[i].reason, "engine test"};
        }
      throw Error(ErrorKind::ToolNeedsApproval, "tool '" + std::string(tool) + "' asks for a person's approval, and "
                                                "the test gives no decision for it (decisions: [{tool: " +
                                                std::string(tool) + ", approve: true}])");
    };
    options.decide = &decide;
    NullSink quiet;
    agent::RunResult r = executor->run(inputs, quiet, options);
    if (r.stopped_reason == StoppedReason::Cancelled && cancel.stopped()) throw_stopped(cancel);
    if (journal) check_against_journal(*fixture, *journal, t, r, out.failures);
    for (size_t i = 0; i < used.size(); ++i)
      if (!used[i])
        out.failures.push_back("decisions[" + std::to_string(i) + "]: no call of tool '" + t.decisions[i].tool.value +
                               "' asked for it");
    bool expects = t.expect.output || t.expect.output_contains || t.expect.output_matches || !t.expect.outputs.empty() ||
                   t.expect.tools || t.expect.stopped_reason || !t.expect.steps.empty() || t.expect.error ||
                   t.expect.llm_calls;
    if (expects || !journal) check(t.expect, r, out.failures);
    else if (!r.ok()) out.failures.push_back("the run failed: " + r.error->formatted());
  } catch (const Error& e) {
    if ((e.kind() == ErrorKind::RunCancelled || e.kind() == ErrorKind::RunTimeout) && cancel.stopped()) throw;
    out.failures.push_back(e.formatted());
  }
  out.elapsed_ms = engine::elapsed_ms(start);
  return out;
}

// Text as XML 1.0 may hold it: well-formed whatever an output held (invalid UTF-8 becomes U+FFFD, as do the two
// non-characters XML excludes; control bytes XML has no place for, even escaped, become '?').
std::string xml_escaped(std::string_view raw) {
  std::string s = utf8::replace_invalid(raw);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += "?";
        } else if (s.compare(i, 3, "\xEF\xBF\xBE") == 0 || s.compare(i, 3, "\xEF\xBF\xBF") == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFE, U+FFFF
          i += 2;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms / 1000.0);
  return buf;
}

}  // namespace

size_t TestFileOutcome::passed() const {
  return static_cast<size_t>(std::count_if(tests.begin(), tests.end(), [](const TestOutcome& t) { return t.passed(); }));
}

spec::TestFileSpec load_test_file(const std::string& name) {
  std::string arg = spec::find_workflow_file(name).string();  // `engine test calculator`: an installed example's tests
  if (arg.find(".test.") != std::string::npos) return spec::load_tests(arg);
  std::filesystem::path beside = spec::test_file_for(arg);
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return spec::load_tests(beside);
  if (auto within = spec::load_tests_in_workflow(arg)) return std::move(*within);
  throw Error(ErrorKind::Usage, arg + " has no tests: write them in " + beside.string() + ", or under `tests:` in it (docs/testing.md)");
}

namespace {

bool has_own_tests(const std::filesystem::path& workflow) {
  std::ifstream in(workflow);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("tests:", 0) == 0) return true;  // a top-level key
  return false;
}

bool ends_with_any(const std::string& name, std::initializer_list<const char*> endings) {
  for (const char* e : endings)
    if (name.size() >= std::strlen(e) && name.compare(name.size() - std::strlen(e), std::string::npos, e) == 0) return true;
  return false;
}

}  // namespace

std::vector<std::string> find_tests(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  constexpr size_t kMaxEntries = 100000;
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw Error(ErrorKind::IoReadFailed, "cannot read the folder " + folder.string() + ": " + ec.message());
  size_t seen = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) throw Error(ErrorKind::IoReadFailed, "cannot read under " + folder.string() + ": " + ec.message());
    if (++seen > kMaxEntries)
      throw Error(ErrorKind::Usage, "more than 100,000 files under " + folder.string() + ": name the folders that hold tests");
    std::string name = it->path().filename().string();
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      if (name.empty() || name[0] == '.' || name == "node_modules") it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    // "./w.test.yaml" as "w.test.yaml": the folder's own files are named as the user would.
    if (ends_with_any(name, {".test.yaml", ".test.yml"})) {
      found.push_back(it->path().lexically_normal().string());
    } else if (ends_with_any(name, {".yaml", ".yml"}) && !ends_with_any(name, {".eval.yaml", ".eval.yml"})) {
      std::error_code none;
      if (!fs::exists(spec::test_file_for(it->path().string()), none) && has_own_tests(it->path()))
        found.push_back(it->path().lexically_normal().string());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void keep_tests_named(std::vector<spec::TestFileSpec>& files, const std::string& filter) {
  if (filter.empty()) return;
  for (auto& f : files)
    f.tests.erase(std::remove_if(f.tests.begin(), f.tests.end(),
                                 [&](const auto& t) { return t.name.find(filter) == std::string::npos; }),
                  f.tests.end());
  files.erase(std::remove_if(files.begin(), files.end(), [](const auto& f) { return f.tests.empty(); }), files.end());
}

TestFileOutcome run_workflow_tests(const spec::TestFileSpec& tests, const Cancel& cancel,
                                   const std::shared_ptr<SecretSet>& secrets) {
  TestFileOutcome out{tests.display_path, tests.workflow_file.string(), {}};
  std::optional<spec::WorkflowSpec> workflow;
  std::optional<Error> load_error;
  try {
    workflow = spec::load_workflow(tests.workflow_file, {.search_path = {spec::default_search_path()}, .secrets = secrets});
  } catch (const Error& e) {
    load_error = e;
  }
  for (const auto& t : tests.tests) {
    if (cancel.stopped()) throw_stopped(cancel);
    if (load_error) out.tests.push_back({t.name, {load_error->formatted()}, 0});
    else out.tests.push_back(run_one(*workflow, t, cancel));
  }
  return out;
}

std::string junit_xml(const std::vector<TestFileOutcome>& files) {
  size_t tests = 0, failures = 0;
  double ms = 0;
  for (const auto& f : files)
    for (const auto& t : f.tests) {
      ++tests;
      failures += t.passed() ? 0 : 1;
      ms += t.elapsed_ms;
    }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"engine test\" tests=\"" +
                    std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" time=\"" + seconds(ms) + "\">\n";
  for (const auto& f : files) {
    double file_ms = 0;
    for (const auto& t : f.tests) file_ms += t.elapsed_ms;
    xml += "  <testsuite name=\"" + xml_escaped(f.file) + "\" tests=\"" + std::to_string(f.tests.size()) +
           "\" failures=\"" + std::to_string(f.tests.size() - f.passed()) + "\" time=\"" + seconds(file_ms) + "\">\n";
    for (const auto& t : f.tests) {
      xml += "    <testcase name=\"" + xml_escaped(t.name) + "\" classname=\"" + xml_escaped(f.workflow) +
             "\" time=\"" + seconds(t.elapsed_ms) + "\"";
      if (t.passed()) {
        xml += "/>\n";
        continue;
      }
      xml += ">\n      <failure message=\"" + xml_escaped(t.failures[0]) + "\">" + xml_escaped(join(t.failures, "\n")) +
             "</failure>\n    </testcase>\n";
    }
    xml += "  </testsuite>\n";
  }
  return xml + "</testsuites>\n";
}

}  // namespace engine::app
