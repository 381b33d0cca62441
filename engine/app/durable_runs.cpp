#include "engine/app/durable_runs.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

#include "engine/app/loading.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lock.h"
#include "engine/core/text.h"
#include "engine/spec/search_path.h"
#include "engine/store/digest.h"
#include "engine/store/run_journal.h"
#include "engine/tools/journaled_call.h"

namespace engine::app {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Who runs a journaled run: an flock on a file of its own beside the store, held while a process runs or resumes
// it. A process that dies lets go of it with its last descriptor, so a crashed run is free to resume at once, and
// two resumes of one run cannot both go on.
class RunLock {
 public:
  static std::optional<RunLock> take(const store::RunStore& store, const std::string& id) {
    std::filesystem::path folder = store.file().string() + "-locks";
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    std::filesystem::path file = folder / (id + ".lock");
    std::optional<FileDescriptor> fd = open_locked(file, O_RDWR | O_CREAT | O_CLOEXEC, LockMode::Exclusive, 0600);
    if (!fd) return std::nullopt;
    return RunLock(std::move(file), std::move(*fd));
  }
  RunLock(RunLock&&) = default;
  ~RunLock() {
    if (fd_.valid()) ::unlink(file_.c_str());  // while still held: no other process waits on a name that is gone
  }

 private:
  RunLock(std::filesystem::path file, FileDescriptor fd) : file_(std::move(file)), fd_(std::move(fd)) {}
  std::filesystem::path file_;
  FileDescriptor fd_;
};

// How a journal ends as its run did. A run that was cancelled (Ctrl-C), or stopped because its journal could not
// be written or no longer matches, stays running: it is resumed, not ended.
void end_journal(store::RunJournal& journal, const agent::RunResult& r) {
  store::JournalState state = store::JournalState::Ended;
  if (r.error) {
    switch (r.error->kind) {
      case ErrorKind::JournalInDoubt: state = store::JournalState::InDoubt; break;
      case ErrorKind::RunCancelled:
      case ErrorKind::JournalDiverged:
      case ErrorKind::StoreFailed: state = store::JournalState::Running; break;
      default: break;
    }
  }
  try {
    journal.end(state);
  } catch (const Error&) {  // the run's answer stands; a journal left running is resumed and replays to its end
  }
}

agent::RunResult run_with_journal(RunObservers& observers, const workflow::Executor& executor, const Value& inputs,
                                  agent::RunOptions options, store::RunJournal& journal) {
  options.run_id = journal.header().id;
  options.journal = JournalScope{&journal, ""};
  agent::RunResult r = run_observed(observers, executor, inputs, std::move(options));
  end_journal(journal, r);
  return r;
}

// A journaled run that may still be resumed (not ended), with no other process at it.
std::pair<store::JournalRun, RunLock> open_unfinished(store::RunStore& store, const std::string& id) {
  std::optional<store::JournalRun> header = store.find_journal(id);
  if (!header) throw Error(ErrorKind::StoreNoSuchRun, "no journaled run's id starts with '" + id + "' in " + store.file().string());
  if (header->state == store::JournalState::Ended)
    throw Error(ErrorKind::JournalEnded, "run " + header->id + " ended: a run that ended is not resumed (fork it to run it again from a step)");
  std::optional<RunLock> lock = RunLock::take(store, header->id);
  if (!lock) throw Error(ErrorKind::JournalBusy, "run " + header->id + " is being run or resumed by another process now");
  return {std::move(*header), std::move(*lock)};
}

}  // namespace

std::string resolve_call(store::RunStore& store, const std::string& id, const std::string& call,
                         const std::optional<Value>& happened) {
  auto [header, lock] = open_unfinished(store, id);
  std::vector<store::StoredEntry> entries = store.journal_entries(header.id);
  // The calls in doubt: an intent with no result at its point.
  std::vector<const store::StoredEntry*> in_doubt;
  int64_t last_seq = 0;
  for (const auto& e : entries) {
    last_seq = std::max(last_seq, e.seq);
    if (e.entry.kind != JournalKind::ToolIntent) continue;
    bool ended = false;
    for (const auto& r : entries)
      ended = ended || (r.entry.kind == JournalKind::ToolResult && r.entry.path == e.entry.path && r.entry.key == e.entry.key);
    if (!ended) in_doubt.push_back(&e);
  }
  const store::StoredEntry* intent = nullptr;
  std::vector<std::string> names;
  for (const auto* e : in_doubt) {
    names.push_back(call_name(e->entry.path, e->entry.key));
    if (names.back() == call) intent = e;
  }
  if (!intent)
    throw Error(ErrorKind::Usage, "run " + header.id + " has no call '" + call + "' in doubt" +
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

Value workflow_file_digests(const std::string& workflow_file) {
  std::filesystem::path path = std::filesystem::absolute(workflow_file).lexically_normal();
  return Value{{path.string(), store::sha256_hex(read_file(path))}};
}

agent::RunResult run_journaled(RunObservers& observers, const workflow::Executor& executor,
                               const std::string& workflow_file, const Value& inputs, agent::RunOptions options,
                               Durability durability) {
  store::RunWriter* writer = observers.store_writer();
  if (!writer) return run_observed(observers, executor, inputs, std::move(options));
  store::JournalRun header;
  header.id = options.run_id.empty() ? executor.new_run_id() : std::string(options.run_id);
  header.workflow = executor.name();
  // A bare name was found on the search path: the file it named is what a resume loads.
  std::filesystem::path found = spec::find_workflow_file(workflow_file);
  header.source = std::filesystem::absolute(found).lexically_normal().string();
  header.files = workflow_file_digests(header.source);
  header.inputs = inputs;
  header.durability = durability;
  header.started_ms = now_ms();
  std::optional<RunLock> lock = RunLock::take(*observers.store(), header.id);
  store::RunJournal journal(*writer, std::move(header), {.allow_changed = false, .secrets = executor.secrets()});
  return run_with_journal(observers, executor, inputs, std::move(options), journal);
}

agent::RunResult resume_run(RunObservers& observers, const std::string& id, const ResumeOptions& o,
                            agent::RunOptions run_options) {
  store::RunStore* store = observers.store();
  if (!store) throw Error(ErrorKind::Usage, "the run store is off (ENGINE_STORE=off or --no-store): runs are resumed from it");
  auto [opened, lock] = open_unfinished(*store, id);
  std::optional<store::JournalRun> header = std::move(opened);
  std::vector<std::string> changed;
  for (const auto& [path, digest] : header->files.items()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) changed.push_back(path + " (deleted)");
    else if (store::sha256_hex(read_file(path)) != digest) changed.push_back(path);
  }
  if (!changed.empty() && !o.allow_changed) {
    std::string list;
    for (const auto& c : changed) list += "\n  " + c;
    throw Error(ErrorKind::JournalChanged, "run " + header->id + "'s workflow changed since it started:" + list +
                                               "\n(--allow-changed replays while its recorded calls still match)");
  }
  std::vector<store::StoredEntry> entries = store->journal_entries(header->id);
  auto executor = load_executor(header->source, {.llm = o.llm, .secrets = o.secrets});
  Value inputs = header->inputs;
  store::RunJournal journal(*observers.store_writer(), std::move(*header), std::move(entries),
                            {.allow_changed = o.allow_changed, .secrets = executor->secrets()});
  return run_with_journal(observers, *executor, inputs, std::move(run_options), journal);
}

}  // namespace engine::app
