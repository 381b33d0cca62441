#include "engine/agent/tool_set.h"

#include <algorithm>

#include "engine/core/text.h"

namespace engine::agent {

llm::ToolSchema schema_of(const tools::Tool& tool) {
  if (!tool.parameters().is_null()) return {tool.name(), tool.description(), tool.parameters()};
  return {tool.name(), tool.description(),
          Value{{"type", "object"},
                {"properties", {{"input", {{"type", "string"}, {"description", "the input to the tool"}}}}},
                {"required", {"input"}}}};
}

ToolSet::ToolSet(std::vector<AgentTool> given) : tools(std::move(given)) {
  std::vector<std::string> name_list, lines;
  for (const auto& t : tools) {
    described.push_back(Value{{"name", t.tool->name()}, {"description", t.tool->description()}});
    name_list.push_back(t.tool->name());
    lines.push_back(t.tool->name() + ": " + t.tool->description());
    schemas.push_back(schema_of(*t.tool));
  }
  names = join(name_list, ", ");
  descriptions = join(lines, "\n");
}

AgentTools::AgentTools(std::vector<AgentTool> initial, std::vector<Changing> changing)
    : changing_(std::move(changing)) {
  for (const auto& c : changing_) seen_at_build_.push_back(c.source->current(nullptr));
  for (const auto& t : initial) {
    int from = -1;
    for (size_t i = 0; i < seen_at_build_.size() && from < 0; ++i)
      if (std::any_of(seen_at_build_[i]->begin(), seen_at_build_[i]->end(), [&](const auto& s) { return s == t.tool; }))
        from = static_cast<int>(i);
    from_.push_back(from);
  }
  seen_ = seen_at_build_;
  initial_ = std::make_shared<const ToolSet>(std::move(initial));
  latest_ = initial_;
}

std::shared_ptr<const ToolSet> AgentTools::current(const Cancel* cancel) const {
  if (changing_.empty()) return initial_;
  std::vector<std::shared_ptr<const tools::ToolList>> lists;
  for (const auto& c : changing_) lists.push_back(c.source->current(cancel));
  std::lock_guard lock(mu_);
  if (lists == seen_) return latest_;
  std::vector<AgentTool> tools;
  std::vector<bool> placed(changing_.size(), false);
  // A name already taken (a tool declared before, another server's) keeps its first tool: a server cannot shadow one.
  auto first_of_its_name = [&tools](const AgentTool& t) {
    return std::none_of(tools.begin(), tools.end(), [&](const AgentTool& o) { return o.tool->name() == t.tool->name(); });
  };
  // A source's tools go where its first tool was; a source that gave none at the build goes last.
  auto take = [&](size_t source, std::vector<AgentTool>& out) {
    const Changing& c = changing_[source];
    auto named = [](const std::vector<std::string>& names, const std::string& n) {
      return std::find(names.begin(), names.end(), n) != names.end();
    };
    for (const auto& tool : *lists[source])
      if ((c.only.empty() || named(c.only, tool->name())) &&
          first_of_its_name(AgentTool{tool, false, false, std::nullopt}))
        out.push_back(AgentTool{tool, named(c.return_direct, tool->name()), c.fail_run_on_error, c.effect, c.approval});
  };
  for (size_t i = 0; i < initial_->tools.size(); ++i) {
    int from = from_[i];
    if (from < 0) {
      if (first_of_its_name(initial_->tools[i])) tools.push_back(initial_->tools[i]);
    } else if (!placed[static_cast<size_t>(from)]) {
      placed[static_cast<size_t>(from)] = true;
      take(static_cast<size_t>(from), tools);
    }
  }
  for (size_t s = 0; s < changing_.size(); ++s)
    if (!placed[s]) take(s, tools);
  seen_ = std::move(lists);
  latest_ = std::make_shared<const ToolSet>(std::move(tools));
  return latest_;
}

}  // namespace engine::agent
