#include "engine/app/durable_runs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "engine/app/loading.h"
#include "engine/app/result_documents.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lock.h"
#include "engine/core/text.h"
#include "engine/spec/search_path.h"
#include "engine/store/digest.h"
#include "engine/store/replay_journal.h"
#include "engine/store/run_journal.h"
#include "engine/tools/journaled_call.h"

namespace engine::app {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<RunLock> RunLock::take(const store::RunStore& store, const std::string& id) {
  std::filesystem::path folder = store.file().string() + "-locks";
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  std::filesystem::path file = folder / (id + ".lock");
  std::optional<FileDescriptor> fd = open_locked(file, O_RDWR | O_CREAT | O_CLOEXEC, LockMode::Exclusive, 0600);
  if (!fd) return std::nullopt;
  return RunLock(std::move(file), std::move(*fd));
}

std::optional<RunLock> RunLock::take_new(const store::RunStore& store, const std::string& id) {
  try {
    return take(store, id);
  } catch (const Error&) {
    return std::nullopt;
  }
}

RunLock::~RunLock() {
  if (fd_.valid()) ::unlink(file_.c_str());  // while still held: no other process waits on a name that is gone
}

// A run that was cancelled (Ctrl-C, a server shutting down), or stopped because its journal could not be written or
// no longer matches, stays running: it is resumed, not ended.
void end_journal(store::RunJournal& journal, const agent::RunResult& r) {
  store::JournalState state = store::JournalState::Ended;
  if (r.error) {
    switch (r.error->kind) {
      case ErrorKind::JournalInDoubt: state = store::JournalState::InDoubt; break;
      case ErrorKind::RunWaiting: state = store::JournalState::Waiting; break;
      case ErrorKind::RunCancelled:
      case ErrorKind::JournalDiverged:
      case ErrorKind::StoreFailed: state = store::JournalState::Running; break;
      default: break;
    }
  }
  try {
    // The run's answer, for a request that asks for it again (server/served_runs.h).
    if (state == store::JournalState::Ended) journal.write({"", JournalKind::RunEnd, "", "", run_document(r)});
    journal.end(state);
  } catch (const Error&) {  // the run's answer stands; a journal left running is resumed and replays to its end
  }
}

namespace {

agent::RunResult run_with_journal(RunObservers& observers, const workflow::Executor& executor, const Value& inputs,
                                  agent::RunOptions options, store::RunJournal& journal) {
  options.run_id = journal.header().id;
  options.journal = JournalScope{&journal, ""};
  agent::RunResult r = run_observed(observers, executor, inputs, std::move(options));
  end_journal(journal, r);
  return r;
}

}  // namespace

Reentry reenter_run(store::RunStore& store, const std::string& id) {
  std::optional<store::JournalRun> header = store.find_journal(id);
  if (!header) throw Error(ErrorKind::StoreNoSuchRun, "no journaled run's id starts with '" + id + "' in " + store.file().string());
  if (header->state == store::JournalState::Ended)
    throw Error(ErrorKind::JournalEnded, "run " + header->id + " ended: a run that ended is not resumed (fork it to run it again from a step)");
  std::optional<RunLock> lock = RunLock::take(store, header->id);
  if (!lock) throw Error(ErrorKind::JournalBusy, "run " + header->id + " is being run or resumed by another process now");
  std::vector<store::StoredEntry> entries = store.journal_entries(header->id);
  return {std::move(*header), std::move(entries), std::move(*lock)};
}

std::vector<std::string> changed_files(const Value& then, const Value& now) {
  std::vector<std::string> changed;
  for (const auto& [path, digest] : then.items()) {
    if (!now.contains(path)) changed.push_back(path + " (deleted)");
    else if (now[path] != digest) changed.push_back(path);
  }
  return changed;
}

Error changed_error(const std::string& id, const std::vector<std::string>& changed) {
  std::string list;
  for (const auto& c : changed) list += "\n  " + c;
  return Error(ErrorKind::JournalChanged, "run " + id + "'s workflow changed since it started:" + list +
                                              "\n(--allow-changed replays while its recorded calls still match)");
}

std::string resolve_call(store::RunStore& store, const std::string& id, const std::string& call,
                         const std::optional<Value>& happened) {
  auto [header, entries, lock] = reenter_run(store, id);
  // The calls in doubt: an intent with no result at its point (a journal may hold a million entries: one pass each).
  std::set<std::string> ended;
  int64_t last_seq = 0;
  for (const auto& e : entries) {
    last_seq = std::max(last_seq, e.seq);
    if (e.entry.kind == JournalKind::ToolResult) ended.insert(journal_point(e.entry.path, JournalKind::ToolResult, e.entry.key));
  }
  std::vector<const store::StoredEntry*> in_doubt;
  for (const auto& e : entries)
    if (e.entry.kind == JournalKind::ToolIntent &&
        !ended.count(journal_point(e.entry.path, JournalKind::ToolResult, e.entry.key)))
      in_doubt.push_back(&e);
  const store::StoredEntry* intent = nullptr;
  std::vector<std::string> names;
  for (const auto* e : in_doubt) {
    names.push_back(printable_excerpt(call_name(e->entry.path, e->entry.key), 200));
    if (names.back() == call) intent = e;
  }
  if (!intent)
    throw Error(ErrorKind::Usage, "run " + header.id + " has no call '" + printable_excerpt(call, 200) + "' in doubt" +
                                      (names.empty() ? std::string(" (it has none)") : " (in doubt: " + join(names, ", ") + ")"));
  std::string tool = intent->entry.value.value("tool", "");
  store::JournalWrite write{header.id, std::nullopt, {}, store::JournalState::Running};
  if (happened) {
    JournalEntry result{intent->entry.path, JournalKind::ToolResult, intent->entry.key, intent->entry.asked,
                        tools::result_to_json(tools::ToolResult::success(*happened))};
    result.value["resolved"] = true;  // said by a person, not returned by the tool
    write.entries.push_back({last_seq + 1, std::move(result)});
  } else {
    store.delete_journal_entry(header.id, intent->seq);
  }
  store.append_journal(std::span<const store::JournalWrite>(&write, 1));
  return tool;
}

std::string workflow_source(const std::string& workflow) {
  return std::filesystem::absolute(spec::find_workflow_file(workflow)).lexically_normal().string();
}

std::vector<PendingCall> pending_calls(const std::vector<store::StoredEntry>& entries) {
  std::set<std::string> decided;
  for (const auto& e : entries)
    if (e.entry.kind == JournalKind::Decision) decided.insert(journal_point(e.entry.path, JournalKind::Decision, e.entry.key));
  std::vector<PendingCall> out;
  for (const auto& e : entries)
    if (e.entry.kind == JournalKind::Ask && !decided.count(journal_point(e.entry.path, JournalKind::Decision, e.entry.key)))
      out.push_back({printable_excerpt(call_name(e.entry.path, e.entry.key), 200), e.entry.value.value("tool", ""),
                     e.entry.value.contains("arguments") ? e.entry.value["arguments"] : Value()});
  return out;
}

PendingCall decide_call(store::RunStore& store, const std::string& id, const std::string& call, const Decision& decision) {
  if (auto found = store.find_journal(id); found && found->state == store::JournalState::Ended)
    throw Error(ErrorKind::JournalNotWaiting, "run " + found->id + " waits for no decision (it ended)");
  auto [header, entries, lock] = reenter_run(store, id);
  if (header.state != store::JournalState::Waiting)
    throw Error(ErrorKind::JournalNotWaiting, "run " + header.id + " waits for no decision (it is " +
                                                  std::string(store::name_of(header.state)) + ")");
  std::vector<PendingCall> pending = pending_calls(entries);
  std::vector<std::string> names;
  for (const auto& p : pending) names.push_back(p.call);
  const PendingCall* chosen = nullptr;
  for (const auto& p : pending)
    if (p.call == call || (call.empty() && pending.size() == 1)) chosen = &p;
  if (!chosen) {
    for (const auto& e : entries)
      if (!call.empty() && e.entry.kind == JournalKind::Decision &&
          printable_excerpt(call_name(e.entry.path, e.entry.key), 200) == call)
        throw Error(ErrorKind::JournalNotWaiting, "call " + call + " of run " + header.id + " was decided already (" +
                                                      (e.entry.value.value("approved", false) ? "approved" : "rejected") + ")");
    if (pending.empty())
      throw Error(ErrorKind::JournalNotWaiting, "every call run " + header.id + " waits on is decided: engine runs "
                                                    "resume " + header.id + " goes on");
    if (call.empty())
      throw Error(ErrorKind::JournalNotWaiting, "run " + header.id + " waits on " + std::to_string(pending.size()) +
                                                    " calls: name one (" + join(names, ", ") + ")");
    throw Error(ErrorKind::JournalNotWaiting, "run " + header.id + " waits on no call '" + printable_excerpt(call, 200) +
                                                  "' (it waits on: " + join(names, ", ") + ")");
  }
  const store::StoredEntry* ask = nullptr;
  int64_t last_seq = 0;
  for (const auto& e : entries) {
    last_seq = std::max(last_seq, e.seq);
    if (e.entry.kind == JournalKind::Ask && printable_excerpt(call_name(e.entry.path, e.entry.key), 200) == chosen->call)
      ask = &e;
  }
  Value made{{"approved", decision.approved}, {"by", decision.by}, {"at_ms", now_ms()}};
  if (!decision.reason.empty()) made["reason"] = decision.reason;
  store::JournalWrite write{header.id, std::nullopt, {}, std::nullopt};
  write.entries.push_back({last_seq + 1, {ask->entry.path, JournalKind::Decision, ask->entry.key, ask->entry.asked, std::move(made)}});
  store.append_journal(std::span<const store::JournalWrite>(&write, 1));
  return *chosen;
}

store::JournalRun new_journal_header(const workflow::Executor& executor, std::string source, Value files,
                                    Value inputs, Durability durability, std::string id, std::string origin) {
  store::JournalRun header;
  header.id = std::move(id);
  header.workflow = executor.name();
  header.source = std::move(source);
  header.files = std::move(files);
  header.inputs = std::move(inputs);
  header.durability = durability;
  header.origin = std::move(origin);
  header.started_ms = now_ms();
  return header;
}

Value workflow_file_digests(const workflow::Executor& executor, const std::string& source) {
  Value files = Value::object();
  files[source] = store::sha256_hex(read_file(source));
  for (const auto& file : executor.files()) {
    std::string name = std::filesystem::absolute(file).lexically_normal().string();
    if (!files.contains(name)) files[name] = store::sha256_hex(read_file(file));
  }
  return files;
}

agent::RunResult run_journaled(RunObservers& observers, const workflow::Executor& executor,
                               const std::string& workflow_file, const Value& inputs, agent::RunOptions options,
                               Durability durability) {
  store::RunWriter* writer = observers.store_writer();
  if (!writer) return run_observed(observers, executor, inputs, std::move(options));
  std::string source = workflow_source(workflow_file);
  store::JournalRun header =
      new_journal_header(executor, source, workflow_file_digests(executor, source), inputs, durability,
                         options.run_id.empty() ? executor.new_run_id() : std::string(options.run_id));
  std::optional<RunLock> lock = RunLock::take_new(*observers.store(), header.id);
  store::RunJournal journal(*writer, std::move(header), {.allow_changed = false, .secrets = executor.secrets()});
  return run_with_journal(observers, executor, inputs, std::move(options), journal);
}

namespace {

// The step a journal path is under: "classify" for "classify", "classify#2", "many[3]" or "research/agent".
std::string_view top_step(std::string_view path) {
  size_t end = path.find_first_of("/[#");
  return end == std::string_view::npos ? path : path.substr(0, end);
}

}  // namespace

agent::RunResult fork_run(RunObservers& observers, const std::string& id, const ForkOptions& o,
                          agent::RunOptions run_options) {
  store::RunStore* store = observers.store();
  if (!store) throw Error(ErrorKind::Usage, "the run store is off (ENGINE_STORE=off or --no-store): runs are forked from it");
  std::optional<store::JournalRun> parent = store->find_journal(id);
  if (!parent) throw Error(ErrorKind::StoreNoSuchRun, "no journaled run's id starts with '" + id + "' in " + store->file().string());
  std::vector<store::StoredEntry> entries = store->journal_entries(parent->id);
  // Everything the parent journaled before the step first started is the fork's; from there on it runs live.
  auto cut = std::find_if(entries.begin(), entries.end(), [&](const store::StoredEntry& e) { return top_step(e.entry.path) == o.at; });
  if (cut == entries.end()) {
    std::vector<std::string> steps;
    for (const auto& e : entries) {
      std::string step(top_step(e.entry.path));
      if (!step.empty() && std::find(steps.begin(), steps.end(), step) == steps.end()) steps.push_back(step);
    }
    throw Error(ErrorKind::Usage, "run " + parent->id + " has no step '" + o.at + "' in its journal" +
                                      (steps.empty() ? std::string(" (a run of one agent has no steps to fork at)")
                                                     : " (its steps: " + join(steps, ", ") + ")"));
  }
  entries.erase(cut, entries.end());

  std::string source = o.workflow.empty() ? parent->source : o.workflow;
  auto executor = load_executor(source, {.llm = o.llm, .secrets = o.secrets});
  std::string absolute = o.workflow.empty() ? source : workflow_source(source);
  Value inputs = parent->inputs;
  for (const auto& [name, value] : o.inputs.items()) inputs[name] = value;
  store::JournalRun header = new_journal_header(
      *executor, absolute, workflow_file_digests(*executor, absolute), executor->resolve_inputs(inputs),
      o.durability ? *o.durability : executor->durability().value_or(parent->durability), executor->new_run_id());
  header.parent = parent->id;
  header.fork_at = o.at;
  std::optional<RunLock> lock = RunLock::take_new(*store, header.id);
  Value resolved = header.inputs;
  store::RunJournal journal(*observers.store_writer(), std::move(header), std::move(entries),
                            {.allow_changed = true, .secrets = executor->secrets(), .write_recorded = true});
  return run_with_journal(observers, *executor, resolved, std::move(run_options), journal);
}

ReplayReport replay_run(store::RunStore& store, RunObservers& observers, const std::string& id,
                        const std::string& workflow, std::shared_ptr<SecretSet> secrets) {
  std::optional<store::JournalRun> header = store.find_journal(id);
  if (!header) throw Error(ErrorKind::StoreNoSuchRun, "no journaled run's id starts with '" + id + "' in " + store.file().string());
  store::ReplayJournal journal(header->id, store.journal_entries(header->id));
  auto executor = load_executor(workflow.empty() ? header->source : workflow, {.secrets = std::move(secrets)});
  agent::RunOptions options;
  options.journal = JournalScope{&journal, ""};
  ReplayReport report;
  report.run = header->id;
  report.result = run_observed(observers, *executor, executor->resolve_inputs(header->inputs), std::move(options));
  for (auto& d : journal.differences())
    report.differences.push_back(Value{{"step", d.step}, {"recorded", std::move(d.recorded)}, {"replayed", std::move(d.replayed)}});
  report.asked_otherwise = journal.asked_otherwise();
  return report;
}

agent::RunResult resume_run(RunObservers& observers, const std::string& id, const ResumeOptions& o,
                            agent::RunOptions run_options) {
  store::RunStore* store = observers.store();
  if (!store) throw Error(ErrorKind::Usage, "the run store is off (ENGINE_STORE=off or --no-store): runs are resumed from it");
  auto [header, entries, lock] = reenter_run(*store, id);
  Value now = Value::object();  // the files the run was built from, as they are now
  for (const auto& [path, digest] : header.files.items()) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) now[path] = store::sha256_hex(read_file(path));
  }
  std::vector<std::string> changed = changed_files(header.files, now);
  if (!changed.empty() && !o.allow_changed) throw changed_error(header.id, changed);
  auto executor = load_executor(header.source, {.llm = o.llm, .secrets = o.secrets});
  Value inputs = header.inputs;
  store::RunJournal journal(*observers.store_writer(), std::move(header), std::move(entries),
                            {.allow_changed = o.allow_changed, .secrets = executor->secrets()});
  return run_with_journal(observers, *executor, inputs, std::move(run_options), journal);
}

}  // namespace engine::app
