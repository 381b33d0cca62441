#pragma once
// Runs a graph of steps: a step starts as soon as every step it reads has ended, independent steps run at once
// (at most `max_parallel`), a step whose `when` does not hold is skipped, and the first failure stops new starts.
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/run_result.h"
#include "engine/workflow/step.h"
#include "engine/workflow/worker_pool.h"

namespace engine::workflow {

inline constexpr size_t kDefaultMaxParallel = 8;

struct GraphRun {
  // Each step by name: {status: done | skipped | failed | not_run, output, elapsed_ms}; what `steps.NAME` reads.
  Value steps = Value::object();
  std::optional<agent::RunError> error;  // the first step that failed, named in the message
};

// What a graph inside a step (a loop's body) sees besides its own steps: `base` is an object whose `steps` (the
// outer steps it reads) every step's `steps` starts from, and whose other names (previous, iteration) each step
// reads as they are; `suffix` marks its steps' events ("[2]": the second iteration).
struct GraphContext {
  const Value* base = nullptr;
  std::string suffix;
};

// `events` may be called from several threads; the scheduler serialises what the steps emit into it.
// Helpers come from `pool` when given (the executor keeps one), else are threads started for this run.
GraphRun run_graph(const std::vector<Step>& steps, const Value& inputs, EventSink& events,
                   const agent::RunOptions& options, size_t max_parallel = kDefaultMaxParallel,
                   const GraphContext& context = {}, WorkerPool* pool = nullptr);

}  // namespace engine::workflow
