#include "engine/app/validation.h"

#include <algorithm>
#include <new>
#include <tuple>

#include "engine/app/evaluation.h"
#include "engine/assemble/build_executor.h"
#include "engine/spec/search_path.h"
#include "engine/spec/spec_file.h"
#include "engine/spec/test_spec.h"
#include "engine/spec/workflow_spec.h"

namespace engine::app {
namespace {

size_t indentation(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// The text's lines, each without its '\n'.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= text.size();) {
    size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// Takes the YAML entry that starts at `line` (1-based) out of `lines`: that line and the more indented lines under
// it become empty, so the lines after keep their numbers and the next error is located as in the file. A problem
// inside a template written in the file (a block scalar) takes out the key that holds the template. False when
// there is nothing to take out (the document's root).
bool take_out_entry(std::vector<std::string>& lines, int line, bool in_template) {
  if (line < 1 || static_cast<size_t>(line) > lines.size()) return false;
  size_t at = static_cast<size_t>(line) - 1;
  if (in_template) {
    size_t indent = indentation(lines[at]);
    while (at > 0 && (blank(lines[at]) || indentation(lines[at]) >= indent)) --at;
  }
  for (;;) {
    size_t indent = indentation(lines[at]);
    if (indent == 0 && at == 0 && !in_template && lines[at].find(':') == std::string::npos) return false;
    lines[at].clear();
    for (size_t i = at + 1; i < lines.size() && (blank(lines[i]) || indentation(lines[i]) > indent); ++i) lines[i].clear();
    if (indent == 0) return true;
    // The entry's parent, and whether anything is left under it: an emptied mapping goes too, or it would be
    // reported as empty.
    size_t parent = at;
    while (parent > 0 && (blank(lines[parent]) || indentation(lines[parent]) >= indent)) --parent;
    if (blank(lines[parent]) || indentation(lines[parent]) >= indent) return true;
    size_t parent_indent = indentation(lines[parent]);
    bool left = false;
    for (size_t i = parent + 1; i < lines.size() && (blank(lines[i]) || indentation(lines[i]) > parent_indent); ++i)
      left = left || !blank(lines[i]);
    if (left) return true;
    at = parent;
  }
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  return text;
}

bool is_this_file(const SourceLoc& at, const std::string& file) { return at.known() && at.file == file; }

}  // namespace

Validation validate_workflow(const std::string& name, size_t max_errors, bool connect) {
  Validation v{.file = name, .connected = connect};
  std::vector<std::string> lines;
  std::filesystem::path dir;
  std::string file;
  try {
    file = spec::find_workflow_file(name).string();  // `engine validate calculator`: an installed example
    v.file = file;
    spec::SpecFile f = spec::read_spec_file(file);
    lines = lines_of(f.text);
    dir = f.dir;
  } catch (const Error& e) {
    v.errors.push_back(e);
    return v;
  }
  spec::LoadOptions options{.search_path = {spec::default_search_path()}};
  options.including.push_back(std::filesystem::weakly_canonical(file));
  // Each problem found is reported, its entry taken out of the text, and the rest built again, as a compiler goes
  // on past an error; what taking it out causes (a required key now missing) is not a problem of the file.
  bool took_out = false;
  while (v.errors.size() < max_errors) {
    try {
      spec::WorkflowSpec spec = spec::parse_workflow(joined(lines), file, dir, options);
      auto executor = assemble::build_executor(spec, {.connect_mcp = connect});
      if (v.errors.empty()) {
        v.mcp_servers = static_cast<size_t>(
            std::count_if(spec.tools.begin(), spec.tools.end(), [](const spec::ToolSpec& t) { return t.mcp.has_value(); }));
        v.tools = executor->tools().all().size();
        v.inputs = executor->inputs().size();
        v.warnings = executor->warnings();
      }
      break;
    } catch (const Error& e) {
      // What taking an entry out causes is no problem of the file: a key now missing, or a reference to a step or a
      // tool that was taken out.
      bool caused = e.kind() == "spec.missing_key" || e.kind() == "spec.empty" ||
                    e.message().find("got nothing") != std::string::npos || e.kind() == "spec.unknown_tool" ||
                    e.message().find(", and there is no step '") != std::string::npos;
      if (took_out && caused) break;
      bool repeated = !v.errors.empty() && v.errors.back().loc().str() == e.loc().str() &&
                      v.errors.back().message() == e.message();
      if (repeated) break;
      v.errors.push_back(e);
      if (!is_this_file(e.loc(), file)) break;  // in a file it includes: one at a time
      if (e.kind() == "spec.cycle") break;       // it names every step in it; taking one out breaks the others
      bool in_template = e.kind().rfind("template.", 0) == 0;
      if (!take_out_entry(lines, e.loc().line, in_template)) break;
      took_out = true;
    } catch (const std::bad_alloc&) {
      v.errors.push_back(Error("engine.out_of_memory", "out of memory while building the workflow"));
      break;
    }
  }
  // In the file's order, as an editor lists them (found in the order the loader and the builder look).
  std::stable_sort(v.errors.begin(), v.errors.end(), [](const Error& a, const Error& b) {
    return std::tie(a.loc().file, a.loc().line, a.loc().col) < std::tie(b.loc().file, b.loc().line, b.loc().col);
  });
  return v;
}

Validation validate_file(const std::string& file, bool connect) {
  std::string name = std::filesystem::path(file).filename().string();
  bool tests = name.find(".test.") != std::string::npos;
  bool evaluation = name.find(".eval.") != std::string::npos;
  if (!tests && !evaluation) {
    Validation v = validate_workflow(file, kMaxValidationErrors, connect);
    if (!v.ok()) return v;
    try {
      if (auto own = spec::load_tests_in_workflow(v.file)) v.tests = own->tests.size();
    } catch (const Error& e) {
      v.errors.push_back(e);
    }
    return v;
  }
  Validation v{.file = file, .kind = tests ? "tests" : "evaluation"};
  try {
    if (tests) {
      spec::TestFileSpec spec = spec::load_tests(file);
      v.tests = spec.tests.size();
      Validation workflow = validate_workflow(spec.workflow_file.string(), kMaxValidationErrors, connect);
      v.errors = std::move(workflow.errors);
    } else {
      v.evaluators = Evaluation(file).size();
    }
  } catch (const Error& e) {
    v.errors.push_back(e);
  } catch (const std::bad_alloc&) {
    v.errors.push_back(Error("engine.out_of_memory", "out of memory while loading the file"));
  }
  return v;
}

std::string Validation::summary() const {
  if (kind == "tests") return std::to_string(tests) + (tests == 1 ? " test" : " tests");
  if (kind == "evaluation") return std::to_string(evaluators) + (evaluators == 1 ? " evaluator" : " evaluators");
  std::string servers;
  if (mcp_servers > 0 && !connected)
    servers = ", " + std::to_string(mcp_servers) + (mcp_servers == 1 ? " MCP server" : " MCP servers") +
              " not started (--connect starts " + (mcp_servers == 1 ? "it" : "them") + " and checks their tools)";
  return std::to_string(tools) + " tools, " + std::to_string(inputs) + " inputs" +
         (tests > 0 ? ", " + std::to_string(tests) + (tests == 1 ? " test" : " tests") : "") + servers;
}

Value Validation::to_json() const {
  Value j{{"file", file}, {"ok", ok()}};
  if (ok()) {
    if (kind == "tests") {
      j["tests"] = tests;
    } else if (kind == "evaluation") {
      j["evaluators"] = evaluators;
    } else {
      j["tools"] = tools;
      j["inputs"] = inputs;
      if (mcp_servers > 0) {
        j["mcp_servers"] = mcp_servers;
        j["connected"] = connected;
      }
      if (!warnings.empty()) j["warnings"] = warnings;
      if (tests > 0) j["tests"] = tests;
    }
    return j;
  }
  Value list = Value::array();
  for (const auto& error : errors) {
    Value e{{"kind", error.kind()}, {"message", error.message()}};
    const SourceLoc& at = error.loc();
    e["file"] = at.file.empty() ? file : at.file;
    if (at.line > 0) e["line"] = at.line;
    if (at.col > 0) e["column"] = at.col;
    if (!error.source_line().empty()) e["source_line"] = excerpt_line(error.source_line(), error.loc().col).text;
    list.push_back(std::move(e));
  }
  j["errors"] = std::move(list);
  return j;
}

}  // namespace engine::app
