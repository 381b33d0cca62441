#include "engine/tools/tool_registry.h"

#include "engine/core/error.h"

namespace engine::tools {

void ToolRegistry::add(std::shared_ptr<const Tool> tool, size_t origin) {
  if (find(tool->name())) throw Error(ErrorKind::ToolDuplicate, "two tools are named '" + tool->name() + "'");
  tools_.push_back(std::move(tool));
  origins_.push_back(origin);
}

const Tool* ToolRegistry::find(std::string_view name) const {
  for (const auto& t : tools_)
    if (t->name() == name) return t.get();
  return nullptr;
}

void ToolRegistry::add_source(size_t origin, std::shared_ptr<const ToolSource> source) {
  sources_.emplace_back(origin, std::move(source));
}

std::shared_ptr<const ToolSource> ToolRegistry::source(size_t origin) const {
  for (const auto& [at, s] : sources_)
    if (at == origin) return s;
  return nullptr;
}

std::vector<std::string> ToolRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& t : tools_) out.push_back(t->name());
  return out;
}

}  // namespace engine::tools
