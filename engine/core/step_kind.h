#pragma once
// What a step of a workflow does: a type, with its name (the file's `kind:`, step_start's `kind`, a span's
// engine.step.kind) in one table.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

enum class StepKind { Template, Llm, Agent, Tool, Lua, Loop, Workflow };

std::string_view name_of(StepKind kind);
std::optional<StepKind> step_kind_named(std::string_view name);
// Every name, in the order above: what `kind:` may say.
const std::vector<std::string>& step_kind_names();

}  // namespace engine
