#include "engine/core/step_kind.h"

#include "engine/core/name_table.h"

namespace engine {
namespace {

constexpr Named<StepKind> kStepKindNames[] = {
    {StepKind::Template, "template"}, {StepKind::Llm, "llm"}, {StepKind::Agent, "agent"},   {StepKind::Tool, "tool"},
    {StepKind::Lua, "lua"},           {StepKind::Loop, "loop"}, {StepKind::Workflow, "workflow"},
};

}  // namespace

std::string_view name_of(StepKind kind) { return name_in(kStepKindNames, kind); }
std::optional<StepKind> step_kind_named(std::string_view name) { return value_named(kStepKindNames, name); }

const std::vector<std::string>& step_kind_names() {
  static const std::vector<std::string> names = names_in(kStepKindNames);
  return names;
}

}  // namespace engine
