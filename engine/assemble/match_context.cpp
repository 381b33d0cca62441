#include "engine/assemble/match_context.h"

namespace engine::assemble {

Value match_context(const parse::RegexMatch& match, const std::vector<std::string>& group_names) {
  Value ctx = Value::object();
  Value groups = Value::array();
  for (size_t i = 0; i < match.groups.size(); ++i) {
    Value g = match.groups[i] ? Value(std::string(*match.groups[i])) : Value();
    if (i < group_names.size() && !group_names[i].empty()) ctx[group_names[i]] = g;
    groups.push_back(std::move(g));
  }
  ctx["groups"] = std::move(groups);
  return ctx;
}

}  // namespace engine::assemble
