#pragma once
// Why a run stopped: a type, with its name (what traces, the store, --json, metrics and test files say) in one table.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error_kind.h"

namespace engine {

enum class StoppedReason {
  Finish,            // the model gave its answer (or a workflow's steps ended)
  ReturnDirect,      // a return_direct tool's result is the answer
  MaxIterations,     // the agent's bounds, each named as the key that sets it
  MaxExecutionTime,
  MaxTokensTotal,
  MaxCost,
  Error,             // the run failed
  Cancelled,         // asked to stop (Error run.cancelled)
  Timeout,           // past its deadline (Error run.timeout)
};

std::string_view name_of(StoppedReason reason);
std::optional<StoppedReason> stopped_reason_named(std::string_view name);
// Every name, in the order above: what a test file's expect.stopped_reason may say.
const std::vector<std::string>& stopped_reason_names();
// A failed run's reason by its error's kind: cancelled for run.cancelled, timeout for run.timeout, else error.
StoppedReason stopped_reason_of(ErrorKind error_kind);

}  // namespace engine
