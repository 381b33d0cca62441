#include "engine/core/step_kind.h"

#include <utility>

namespace engine {
namespace {

constexpr std::pair<StepKind, std::string_view> kStepKindNames[] = {
    {StepKind::Template, "template"}, {StepKind::Llm, "llm"},   {StepKind::Agent, "agent"},
    {StepKind::Tool, "tool"},         {StepKind::Lua, "lua"},   {StepKind::Loop, "loop"},
    {StepKind::Workflow, "workflow"},
};

}  // namespace

std::string_view name_of(StepKind kind) {
  for (const auto& [k, name] : kStepKindNames)
    if (k == kind) return name;
  return "template";
}

std::optional<StepKind> step_kind_named(std::string_view name) {
  for (const auto& [k, n] : kStepKindNames)
    if (n == name) return k;
  return std::nullopt;
}

const std::vector<std::string>& step_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& [k, name] : kStepKindNames) all.emplace_back(name);
    return all;
  }();
  return names;
}

}  // namespace engine
