// A tools entry's approve: (core/approval.h): one answer for all its tools, or names and globs; deny wins.
#include <catch2/catch.hpp>

#include "engine/core/approval.h"

using namespace engine;

TEST_CASE("approval: deny wins over ask, globs match tool names, the rest is the entry's answer", "[core][approvals]") {
  ApprovalPolicy policy{Approval::Allow, {"delete_*", "move_file"}, {"write_*", "delete_all"}};
  CHECK(policy.for_tool("read_file") == Approval::Allow);
  CHECK(policy.for_tool("write_file") == Approval::Ask);
  CHECK(policy.for_tool("delete_all") == Approval::Deny);  // both lists name it: deny wins
  CHECK(policy.for_tool("move_file") == Approval::Deny);
  CHECK(policy.for_tool("move_files") == Approval::Allow);
  CHECK(ApprovalPolicy{Approval::Ask, {}, {}}.for_tool("anything") == Approval::Ask);
  CHECK(ApprovalPolicy{Approval::Deny, {}, {"x"}}.for_tool("x") == Approval::Deny);
  CHECK(ApprovalPolicy{Approval::Allow, {}, {"[ab]?"}}.for_tool("bz") == Approval::Ask);
  CHECK(approval_names() == std::vector<std::string>{"allow", "ask", "deny"});
  CHECK(approval_named("ask") == Approval::Ask);
  CHECK_FALSE(approval_named("maybe").has_value());
}
