#include "engine/app/validation.h"

#include <new>

#include "engine/assemble/build_executor.h"
#include "engine/spec/search_path.h"
#include "engine/spec/workflow_spec.h"

namespace engine::app {

Validation validate_workflow(const std::string& file) {
  Validation v{file, std::nullopt, 0, 0};
  try {
    auto executor = assemble::build_executor(spec::load_workflow(file, {spec::default_search_path()}));
    v.tools = executor->tools().all().size();
    v.inputs = executor->inputs().size();
  } catch (const Error& e) {
    v.error = e;
  } catch (const std::bad_alloc&) {
    v.error = Error("engine.out_of_memory", "out of memory while building the workflow");
  }
  return v;
}

Value Validation::to_json() const {
  Value j{{"file", file}, {"ok", ok()}};
  if (ok()) {
    j["tools"] = tools;
    j["inputs"] = inputs;
    return j;
  }
  Value e{{"kind", error->kind()}, {"message", error->message()}};
  const SourceLoc& at = error->loc();
  e["file"] = at.file.empty() ? file : at.file;
  if (at.line > 0) e["line"] = at.line;
  if (at.col > 0) e["column"] = at.col;
  if (!error->source_line().empty()) e["source_line"] = error->source_line();
  j["errors"] = Value::array({std::move(e)});
  return j;
}

}  // namespace engine::app
