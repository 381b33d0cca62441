#include "engine/core/journal.h"

#include "engine/core/name_table.h"

namespace engine {
namespace {

constexpr Named<Durability> kDurabilities[] = {
    {Durability::Sync, "sync"},
    {Durability::Async, "async"},
    {Durability::Exit, "exit"},
};

constexpr Named<Effect> kEffects[] = {
    {Effect::Read, "read"},
    {Effect::Idempotent, "idempotent"},
    {Effect::Once, "once"},
};

constexpr Named<JournalKind> kKinds[] = {
    {JournalKind::StepStart, "step_start"}, {JournalKind::StepEnd, "step_end"},
    {JournalKind::Llm, "llm"},              {JournalKind::ToolIntent, "tool_intent"},
    {JournalKind::ToolResult, "tool_result"}, {JournalKind::RunEnd, "run_end"},
    {JournalKind::Ask, "ask"},              {JournalKind::Decision, "decision"},
};

}  // namespace

std::string_view name_of(Durability durability) { return name_in(kDurabilities, durability); }
std::optional<Durability> durability_named(std::string_view name) { return value_named(kDurabilities, name); }
const std::vector<std::string>& durability_names() {
  static const std::vector<std::string> names = names_in(kDurabilities);
  return names;
}

std::string_view name_of(Effect effect) { return name_in(kEffects, effect); }
std::optional<Effect> effect_named(std::string_view name) { return value_named(kEffects, name); }
const std::vector<std::string>& effect_names() {
  static const std::vector<std::string> names = names_in(kEffects);
  return names;
}

std::string_view name_of(JournalKind kind) { return name_in(kKinds, kind); }
std::optional<JournalKind> journal_kind_named(std::string_view name) { return value_named(kKinds, name); }

std::string journal_point(std::string_view path, JournalKind kind, std::string_view key) {
  std::string p(path);
  p += '\x1f';
  p += name_of(kind);
  p += '\x1f';
  p += key;
  return p;
}

std::string call_name(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string name(path);
  name += '/';
  name += key;
  return name;
}

JournalScope JournalScope::under(std::string_view name) const {
  JournalScope inner{journal, path};
  if (!inner.path.empty()) inner.path += '/';
  inner.path += name;
  return inner;
}

}  // namespace engine
