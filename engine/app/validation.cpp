#include "engine/app/validation.h"

#include <algorithm>
#include <new>
#include <tuple>

#include "engine/app/evaluation.h"
#include "engine/assemble/build_executor.h"
#include "engine/core/diagnostics.h"
#include "engine/spec/search_path.h"
#include "engine/spec/spec_file.h"
#include "engine/spec/test_spec.h"
#include "engine/spec/workflow_spec.h"

namespace engine::app {
namespace {

// The problems found, in the file's order, as an editor lists them (found in the order the loader and the builder
// look).
Validation finished(Validation v, const Diagnostics& found) {
  v.errors = found.errors();
  std::stable_sort(v.errors.begin(), v.errors.end(), [](const Error& a, const Error& b) {
    return std::tie(a.loc().file, a.loc().line, a.loc().col) < std::tie(b.loc().file, b.loc().line, b.loc().col);
  });
  return v;
}

}  // namespace

Validation validate_workflow(const std::string& name, size_t max_errors, bool connect) {
  Validation v{.file = name, .connected = connect};
  // One pass, as a compiler's: the loader and the builder note each problem of an entry (a key, a tool, a step)
  // and go on with the next; what names an entry left out for its problem is not reported again.
  Diagnostics found(max_errors);
  try {
    std::string file = spec::find_workflow_file(name).string();  // `engine validate calculator`: an installed example
    v.file = file;
    spec::SpecFile f = spec::read_spec_file(file);
    spec::LoadOptions options{.search_path = {spec::default_search_path()}, .found = &found};
    options.including.push_back(std::filesystem::weakly_canonical(file));
    spec::WorkflowSpec spec = spec::parse_workflow(std::move(f.text), file, f.dir, options);
    if (!found.every_section_read()) return finished(std::move(v), found);
    auto executor = assemble::build_executor(spec, {.connect_mcp = connect, .found = &found});
    if (executor && found.empty()) {
      v.mcp_servers = static_cast<size_t>(
          std::count_if(spec.tools.begin(), spec.tools.end(), [](const spec::ToolSpec& t) { return t.mcp.has_value(); }));
      v.tools = executor->tools().all().size();
      v.inputs = executor->inputs().size();
      v.warnings = executor->warnings();
    }
  } catch (const Error& e) {  // what stops the reading (the YAML's syntax, an empty file, a cycle of steps)
    found.note(e);
  } catch (const std::bad_alloc&) {
    found.note(Error(ErrorKind::EngineOutOfMemory, "out of memory while building the workflow"));
  }
  return finished(std::move(v), found);
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
    v.errors.push_back(Error(ErrorKind::EngineOutOfMemory, "out of memory while loading the file"));
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
