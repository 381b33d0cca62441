#pragma once
// A tool call as a journaled run makes it (core/journal.h, docs/durability.md): its intent written before the
// effect, its result after; on a resumed run, a recorded result returned without the call being made, and a call
// that started and never ended made again or stopped *in doubt*, as the tool's effect says.
#include <string>

#include "engine/core/approval.h"
#include "engine/core/journal.h"
#include "engine/tools/tool.h"

namespace engine::tools {

// Calls `instance` (of `tool`) with `input` as call `call_id` at `journal`'s path; without a journal, simply calls
// it. A call the run's `cancel` stopped records no result: cut short, it may or may not have had its effect. Throws Error "journal.in_doubt" for a call of effect `once` that a run before this one started and never
// ended, "journal.diverged" when the journal recorded other arguments for this call, and "store.failed" when its
// intent could not be written (the call is then not made).
ToolResult call_journaled(ToolInstance& instance, const Tool& tool, Effect effect, const Value& input,
                          const std::string& span_id, const JournalScope& journal, const std::string& call_id,
                          const Cancel* cancel);

// What a call's `approve:` asks of it (docs/people.md), and whether the run approves what asks (`--yes`).
struct CallApproval {
  Approval approval = Approval::Allow;
  bool approve_asked = false;
  const ToolDecider* decide = nullptr;  // asked first when the journal holds no decision
};

// The same, first asking as `approval` says: a denied call answers tool.denied, not made; a call that asks is made
// once a person approved it (with the arguments they edited, if they did) and answers tool.rejected with their
// reason when they rejected it. With no decision yet, its ask is journaled and Error "run.waiting" thrown (the run
// stops and holds no process); in a run without a journal, Error "tool.needs_approval".
ToolResult call_approved(ToolInstance& instance, const Tool& tool, Effect effect, CallApproval approval,
                         const Value& input, const std::string& span_id, const JournalScope& journal,
                         const std::string& call_id, const Cancel* cancel);

// A recorded result as the call's: {output, error_kind?}.
Value result_to_json(const ToolResult& result);
ToolResult result_from_json(const Value& recorded);

}  // namespace engine::tools
