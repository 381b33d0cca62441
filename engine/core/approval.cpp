#include "engine/core/approval.h"

#include <fnmatch.h>

#include <algorithm>

#include "engine/core/name_table.h"

namespace engine {
namespace {

constexpr Named<Approval> kApprovals[] = {
    {Approval::Allow, "allow"},
    {Approval::Ask, "ask"},
    {Approval::Deny, "deny"},
};

bool any_matches(const std::vector<std::string>& globs, std::string_view name) {
  std::string n(name);
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& g) { return ::fnmatch(g.c_str(), n.c_str(), 0) == 0; });
}

}  // namespace

std::string_view name_of(Approval approval) { return name_in(kApprovals, approval); }
std::optional<Approval> approval_named(std::string_view name) { return value_named(kApprovals, name); }
const std::vector<std::string>& approval_names() {
  static const std::vector<std::string> names = names_in(kApprovals);
  return names;
}

Approval ApprovalPolicy::for_tool(std::string_view name) const {
  if (all == Approval::Deny || any_matches(deny, name)) return Approval::Deny;
  if (any_matches(ask, name)) return Approval::Ask;
  return all;
}

}  // namespace engine
