#pragma once
// Whether a tool call needs a person (docs/people.md): a tools entry's `approve:`, one answer for every tool the
// entry gives (`approve: ask`) or names and globs for some of them (an MCP server's `write_*`). Deny always wins, then
// ask; a call asked about waits for a person's decision (journaled), or for `engine run --yes`, which approves what
// asks and never what is denied.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/value.h"

namespace engine {

enum class Approval {
  Allow,  // called without asking
  Ask,    // a person approves, rejects with a reason, or edits the arguments first
  Deny,   // never called: the model reads that it may not
};
std::string_view name_of(Approval approval);
std::optional<Approval> approval_named(std::string_view name);
const std::vector<std::string>& approval_names();

// A decision given in place rather than journaled first: a test's `decisions:`. None: the decider has none to give.
struct ToolDecision {
  bool approved = false;
  std::string reason;  // a rejection's, which the model reads
  std::string by;      // who decided, for the journal
};
using ToolDecider = std::function<std::optional<ToolDecision>(std::string_view tool, const Value& arguments)>;

struct ApprovalPolicy {
  Approval all = Approval::Allow;  // the entry's tools not named below
  std::vector<std::string> deny;   // tool names or globs (fnmatch's: *, ?, [...])
  std::vector<std::string> ask;
  Approval for_tool(std::string_view name) const;
};

}  // namespace engine
