#pragma once
// A tool call as a journaled run makes it (core/journal.h, docs/durability.md): its intent written before the
// effect, its result after; on a resumed run, a recorded result returned without the call being made, and a call
// that started and never ended made again or stopped *in doubt*, as the tool's effect says.
#include <string>

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

// A recorded result as the call's: {output, error_kind?}.
Value result_to_json(const ToolResult& result);
ToolResult result_from_json(const Value& recorded);

}  // namespace engine::tools
