#pragma once
// Runs that outlive their process (docs/durability.md): a run journaled in the run store as it goes, and a run
// resumed from its journal, every recorded call answered from it and the rest made live. What the CLI's `run` and
// `runs resume` (and next the server's asynchronous runs) call.
#include <string>

#include "engine/agent/run_result.h"
#include "engine/app/run_observers.h"
#include "engine/core/journal.h"
#include "engine/workflow/executor.h"

namespace engine::app {

// A run of `executor` (loaded from `workflow_file`) on `inputs`, journaled in the observers' store with
// `durability`; a plain observed run when the store is off. The journal ends as the run does: ended, or in_doubt
// when it stopped at a call whose effect cannot be known.
agent::RunResult run_journaled(RunObservers& observers, const workflow::Executor& executor,
                               const std::string& workflow_file, const Value& inputs, agent::RunOptions options,
                               Durability durability);

struct ResumeOptions {
  bool allow_changed = false;  // --allow-changed
  std::string llm;             // --llm: another model for what is made live
  std::shared_ptr<SecretSet> secrets;  // the front end's (app/loading.h)
};

// Resumes run `id` (or an id it starts) from the observers' store. Throws Error "store.no_such_run", "journal.*"
// (ended, busy, changed, corrupt, newer) before anything runs; load errors of the workflow as `engine run` would.
agent::RunResult resume_run(RunObservers& observers, const std::string& id, const ResumeOptions& options,
                            agent::RunOptions run_options);

// Settles a call of run `id` that is in doubt (started, never ended: `call` as call_name() names it): `happened`
// is the tool's output as the call gave it, which a resume then returns; none when the call never happened, which a
// resume then makes. Throws Error "store.no_such_run", "journal.ended", "journal.busy", or "usage" naming the calls
// in doubt when `call` is none of them. Returns the tool's name.
std::string resolve_call(store::RunStore& store, const std::string& id, const std::string& call,
                         const std::optional<Value>& happened);

// The digest of each file a workflow was built from, by absolute path: what a resume compares.
Value workflow_file_digests(const std::string& workflow_file);

}  // namespace engine::app
