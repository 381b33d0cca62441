#pragma once
// One step of a workflow's graph and the work its kind does (docs/workflows.md). Steps are built once, immutable,
// and run by the scheduler, possibly several at once: a step's work keeps no state between runs.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/run_core.h"
#include "engine/core/event.h"
#include "engine/core/step_kind.h"
#include "engine/llm/llm_client.h"
#include "engine/template/template.h"

namespace engine::workflow {

// What a step's work gives. What it spent of the model is counted as it spends it (RunOptions::usage), so that a
// failed attempt, a failed step and a sub-workflow's calls all count.
struct StepOutcome {
  Value output;
  Value details = Value::object();  // more of the step's ending for its entry in the run's steps (a loop's iterations)
};

class StepWork {
 public:
  virtual ~StepWork() = default;
  // `vars` are what the step's templates read: `steps` (the outputs of the steps it reads) over the run's inputs.
  // Throws Error for a failure, which fails the step.
  virtual StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const = 0;
  // What the work was given, rendered again for the report of a step that failed (an llm step's prompt, a tool
  // step's input, an agent's or sub-workflow's inputs by name); null when it takes nothing of its own. Throws
  // what rendering throws.
  virtual Value rendered_inputs(const tmpl::Vars&) const { return nullptr; }
};

struct Step {
  std::string name;
  StepKind kind = StepKind::Template;
  std::shared_ptr<const StepWork> work;
  std::optional<tmpl::Template> when;  // an expression: the step runs only when it holds
  std::vector<size_t> reads;           // the steps whose outputs it reads: the graph's edges, by index
  int attempts = 1;                    // retry: how many times the work is tried before the step fails
  std::chrono::milliseconds backoff{1000};  // retry: the wait after the first failure, doubled after each
  bool continue_on_error = false;      // on_error: continue: a failure is the step's output, and the run goes on
  // The longest the step may take, retries and their waits included; past it the step fails ("run.timeout").
  std::optional<std::chrono::milliseconds> timeout;
  // for_each: an expression giving a list; the work runs once per item (its templates read `item` and
  // `item_index`), at most `concurrency` at once, and the step's output is the list of their outputs.
  std::optional<tmpl::Template> for_each;
  size_t concurrency = 4;
  // Whether the work may wait (for a model, a tool, another workflow): only then is another thread worth starting
  // while it runs. A template step only renders, faster than a thread starts.
  bool may_wait = true;
};

// The steps of a cycle (`a -> b -> a`, the first step again at the end), or none when the graph has no cycle.
std::vector<size_t> find_cycle(const std::vector<Step>& steps);

}  // namespace engine::workflow
