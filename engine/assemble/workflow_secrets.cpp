#include "engine/assemble/workflow_secrets.h"

#include <set>

#include "engine/assemble/build_llm.h"
#include "engine/assemble/build_tools.h"

namespace engine::assemble {
namespace {

void add_all(std::vector<std::string>& to, std::vector<std::string> more) {
  for (auto& secret : more) to.push_back(std::move(secret));
}

// A file named by many steps and tools is one spec (spec::LoadedWorkflows): each is read once.
void collect(const spec::WorkflowSpec& s, std::set<const spec::WorkflowSpec*>& seen, std::vector<std::string>& out) {
  if (!seen.insert(&s).second) return;
  add_all(out, llm_secrets(s.llm));
  add_all(out, tool_secrets(s));
  for (const auto& t : s.tools)
    if (t.workflow_spec) collect(*t.workflow_spec, seen, out);
  spec::for_each_step(s.steps, [&](const spec::StepSpec& st) {
    if (st.llm) add_all(out, llm_secrets(*st.llm));
    if (st.workflow_spec) collect(*st.workflow_spec, seen, out);
  });
}

}  // namespace

std::vector<std::string> workflow_secrets(const spec::WorkflowSpec& s) {
  std::set<const spec::WorkflowSpec*> seen;
  std::vector<std::string> out;
  collect(s, seen, out);
  return out;
}

Error masked_error(const Error& e, const Redactor& redactor) {
  if (redactor.empty()) return e;
  return Error(e.kind(), redactor.redact(e.message()), e.loc(), redactor.redact(e.source_line()));
}

}  // namespace engine::assemble
