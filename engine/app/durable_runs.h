#pragma once
// Runs that outlive their process (docs/durability.md): a run journaled in the run store as it goes, and a run
// resumed from its journal, every recorded call answered from it and the rest made live. What the CLI's `run` and
// `runs resume|fork|replay|resolve` call; the server's runs (server/served_runs.h) use the parts below them.
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/run_result.h"
#include "engine/app/run_observers.h"
#include "engine/core/file.h"
#include "engine/core/journal.h"
#include "engine/store/run_journal.h"
#include "engine/workflow/executor.h"

namespace engine::app {

// Who runs a journaled run: an flock on a file of its own beside the store, held while a process runs or resumes
// it. A process that dies lets go of it with its last descriptor, so a crashed run is free to resume at once, and
// two resumes of one run cannot both go on (nor two in one process: each takes the lock on a file of its own).
class RunLock {
 public:
  // None when another holds it; throws Error "io.*" when the lock's file cannot be made.
  static std::optional<RunLock> take(const store::RunStore& store, const std::string& id);
  // A new run's, which no other can hold: one that cannot be made (a folder that cannot be written) costs only a
  // later resume's check that no one runs the run, never the run.
  static std::optional<RunLock> take_new(const store::RunStore& store, const std::string& id);
  RunLock(RunLock&&) = default;
  ~RunLock();

 private:
  RunLock(std::filesystem::path file, FileDescriptor fd) : file_(std::move(file)), fd_(std::move(fd)) {}
  std::filesystem::path file_;
  FileDescriptor fd_;
};

// The file a workflow's name or path names (a bare name found on the search path), absolute: what a journal names
// as its run's workflow, and what a resume loads.
std::string workflow_source(const std::string& workflow);

// The header of a new journaled run of `executor`: `source` its workflow's file (absolute), `files` the digests of
// what it was built from (workflow_file_digests), `origin` what started it (store/journal_records.h).
store::JournalRun new_journal_header(const workflow::Executor& executor, std::string source, Value files,
                                    Value inputs, Durability durability, std::string id, std::string origin = "");

// Ends `journal` as its run ended: ended; in doubt (stopped at a call whose effect cannot be known); or left running
// when the run was cancelled (Ctrl-C, a server shutting down) or its journal failed, to be resumed.
void end_journal(store::RunJournal& journal, const agent::RunResult& result);

// An unfinished journaled run taken to go on: its header, its entries, and its lock. Throws Error
// "store.no_such_run", "journal.ended", "journal.busy", "journal.corrupt", "journal.newer".
struct Reentry {
  store::JournalRun header;
  std::vector<store::StoredEntry> entries;
  RunLock lock;
};
Reentry reenter_run(store::RunStore& store, const std::string& id);

// The files of a run's `then` ({path: digest}, its header's) that differ in `now` (what its workflow is built from
// now): each changed path, or "PATH (deleted)" when `now` lacks it. And the Error "journal.changed" listing them.
std::vector<std::string> changed_files(const Value& then, const Value& now);
Error changed_error(const std::string& id, const std::vector<std::string>& changed);

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

struct ForkOptions {
  std::string at;                 // the step the fork runs live from
  Value inputs = Value::object();  // inputs that replace the parent's
  std::string workflow;           // another workflow file; empty: the parent's
  std::string llm;                // another model for what is made live
  std::optional<Durability> durability;  // the fork's; none: the workflow's, else the parent's
  std::shared_ptr<SecretSet> secrets;
};

// A new run from run `id` (or an id it starts; ended or not): its journal up to step `at` is the fork's (model
// and tool calls before the step answered from it, no effect made again), and from `at` on it runs live, with the
// inputs and the workflow the options give. A point before `at` now asked differently (a changed prompt or input
// it reads) runs live from there on. The store keeps the fork's parent. Throws Error "store.no_such_run", "usage"
// naming the steps the journal holds when `at` is none of them, "journal.corrupt" or "journal.newer".
agent::RunResult fork_run(RunObservers& observers, const std::string& id, const ForkOptions& options,
                          agent::RunOptions run_options);

struct ReplayReport {
  std::string run;               // the stored run's id
  agent::RunResult result;       // the replay's own
  Value differences = Value::array();  // [{step, recorded, replayed}]: the steps whose end differs
  std::vector<std::string> asked_otherwise;  // points answered although asked otherwise than recorded
};

// Run `id` made again offline (engine runs replay): the workflow it ran (or `workflow`) on its inputs, every model
// and tool call answered from its journal and none made, and each step's end compared with the recorded one.
// `observers` watch the replay (they should not record it: it is not a run of its own). Throws Error
// "store.no_such_run", "journal.corrupt", "journal.newer"; a call the journal does not hold fails the replay's run
// with "journal.not_recorded".
ReplayReport replay_run(store::RunStore& store, RunObservers& observers, const std::string& id,
                        const std::string& workflow, std::shared_ptr<SecretSet> secrets);

// Settles a call of run `id` that is in doubt (started, never ended: `call` as call_name() names it): `happened`
// is the tool's output as the call gave it, which a resume then returns; none when the call never happened, which a
// resume then makes. Throws Error "store.no_such_run", "journal.ended", "journal.busy", or "usage" naming the calls
// in doubt when `call` is none of them. Returns the tool's name.
std::string resolve_call(store::RunStore& store, const std::string& id, const std::string& call,
                         const std::optional<Value>& happened);

// A person's decision on a tool call a run waits on (docs/people.md).
struct Decision {
  bool approved = false;
  std::string reason;  // what the model reads of a rejection
  std::string by;      // who decided: the OS user, a token's name
};

// A call a waiting run waits on: its name (call_name()), its tool, the arguments the model gave.
struct PendingCall {
  std::string call;
  std::string tool;
  Value arguments;
};
// The calls a run's journal holds asks for and no decision yet, in the order asked.
std::vector<PendingCall> pending_calls(const std::vector<store::StoredEntry>& entries);

// Records `decision` on call `call` of run `id` (or an id it starts; `call` empty: the one call it waits on), for a
// resume to act on. Throws Error "store.no_such_run", "journal.ended", "journal.busy", "journal.not_waiting" (a run
// that waits for no decision, a call it does not wait on, a call decided already, or no call named while it waits on
// several). Returns the call decided.
PendingCall decide_call(store::RunStore& store, const std::string& id, const std::string& call, const Decision& decision);

// The SHA-256 of each file a workflow was built from (`source`, its own, and every file its load named: templates,
// Lua scripts, sub-workflows), by absolute path: what a resume compares.
Value workflow_file_digests(const workflow::Executor& executor, const std::string& source);

}  // namespace engine::app
