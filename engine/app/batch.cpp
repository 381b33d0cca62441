#include "engine/app/batch.h"

#include <algorithm>
#include <exception>

#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"

namespace engine::app {
namespace {

using Clock = std::chrono::steady_clock;

size_t number(const std::string& text, const std::string& what) {
  size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-') throw Error(ErrorKind::Usage, what);
  return static_cast<size_t>(n);
}

}  // namespace

Shard parse_shard(const std::string& text) {
  std::string what = "--shard takes K/N, the shard K (from 0) of N, got '" + text + "'";
  size_t slash = text.find('/');
  if (slash == std::string::npos) throw Error(ErrorKind::Usage, what);
  Shard s{number(text.substr(0, slash), what), number(text.substr(slash + 1), what)};
  if (s.count == 0 || s.index >= s.count || s.count > limits::kShards)
    throw Error(ErrorKind::Usage, "--shard " + text + ": K must be from 0 to N-1, and N from 1 to " + std::to_string(limits::kShards));
  return s;
}

Shard shard_from_environment(size_t count, const std::function<const char*(const char*)>& env, std::string& source) {
  auto set = [&](const char* name) {
    const char* v = env(name);
    return v && *v ? v : nullptr;
  };
  std::optional<size_t> k;
  if (const char* v = set("JOB_COMPLETION_INDEX")) {
    k = number(v, std::string("JOB_COMPLETION_INDEX is not a number: '") + v + "'");
    source = "JOB_COMPLETION_INDEX";
  } else if (const char* v = set("SLURM_ARRAY_TASK_ID")) {
    std::string what = "SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_MIN must be numbers";
    size_t id = number(v, what);
    size_t min = set("SLURM_ARRAY_TASK_MIN") ? number(set("SLURM_ARRAY_TASK_MIN"), what) : 0;
    if (id < min) throw Error(ErrorKind::Usage, what + ", with the task's id at least the array's first");
    k = id - min;
    source = "SLURM_ARRAY_TASK_ID";
    if (count == 0 && set("SLURM_ARRAY_TASK_COUNT"))
      count = number(set("SLURM_ARRAY_TASK_COUNT"), "SLURM_ARRAY_TASK_COUNT must be a number");
  }
  if (!k) {
    if (count > 1) throw Error(ErrorKind::Usage, "--shards " + std::to_string(count) + " needs the shard's number: give --shard K/N, or run under a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a Slurm array (SLURM_ARRAY_TASK_ID)");
    return Shard{};
  }
  if (count == 0)
    throw Error(ErrorKind::Usage, source + " says which shard this is, but not how many there are: give --shards N");
  if (count > limits::kShards)
    throw Error(ErrorKind::Usage, std::to_string(count) + " shards are more than the " + std::to_string(limits::kShards) + " a batch may have");
  if (*k >= count)
    throw Error(ErrorKind::Usage, source + " is " + std::to_string(*k) + ", past the last of " + std::to_string(count) + " shards");
  return Shard{*k, count};
}

double BatchSummary::percentile_ms(double p) const {
  if (latencies_ms.empty()) return 0;
  // nearest rank, as most load tools report it
  size_t rank = static_cast<size_t>(p / 100.0 * static_cast<double>(latencies_ms.size()) + 0.999999);
  return latencies_ms[std::clamp<size_t>(rank, 1, latencies_ms.size()) - 1];
}

Value BatchSummary::to_json() const {
  Value j{{"rows", counts.total + counts.resumed},
          {"resumed", counts.resumed},
          {"done", counts.done},
          {"ok", counts.done - counts.failed},
          {"failed", counts.failed},
          {"stopped", stopped},
          {"elapsed_s", elapsed_s},
          {"p50_ms", percentile_ms(50)},
          {"p95_ms", percentile_ms(95)},
          {"tokens", counts.tokens}};
  if (counts.cost_known) j["cost_usd"] = counts.cost_usd;
  return j;
}

namespace {

std::unique_ptr<DataReader> open_data(const BatchOptions& o) {
  std::error_code ec;
  if (std::filesystem::equivalent(o.data, o.out, ec))
    throw Error(ErrorKind::Usage, "--out " + o.out.string() + " is the batch's data; give the results a file of their own");
  if (o.concurrency == 0 || o.concurrency > limits::kBatchConcurrency)
    throw Error(ErrorKind::Usage, "--concurrency must be from 1 to " + std::to_string(limits::kBatchConcurrency) + ", got " +
                             std::to_string(o.concurrency));
  return std::make_unique<DataReader>(o.data);
}

}  // namespace

Batch::Batch(std::shared_ptr<const workflow::Executor> executor, BatchOptions options)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      columns_(options_.map, executor_->inputs()),
      data_(open_data(options_)),
      results_(options_.out, options_.retry_failed) {
  if (data_->is_csv()) columns_.check_header(data_->header());
  counts_.resumed = results_.resumed().ok + results_.resumed().failed;
  check_rows();
}

void Batch::check_rows() {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(options_.data, ec)) return;  // a pipe is read once: checked as it comes
  DataReader reader(options_.data);
  DataRow row;
  Value inputs, rest;
  size_t mine = 0;
  while (reader.next(row)) {
    if (!options_.shard.takes(row.index)) continue;
    ++mine;
    if (!results_.has(row.index)) continue;
    if (row.columns.is_null()) {
      inputs = Value::object();
    } else {
      columns_.split(row.columns, inputs, rest);
    }
    already_done(row, inputs);  // throws for a row run with other inputs
  }
  counts_.total = mine > counts_.resumed ? mine - counts_.resumed : 0;
}

// The line's inputs were masked as they were written: the row's are too before they are compared, so a row that
// quotes a secret still finds its line.
bool Batch::already_done(const DataRow& row, const Value& inputs) const {
  if (!results_.has(row.index)) return false;
  Value shown = inputs;
  executor_->secrets()->mask(shown);
  return results_.done(row.index, to_json_text(shown));
}

BatchCounts Batch::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

bool Batch::next_row(DataRow& row, Value& inputs, Value& rest) {
  std::lock_guard lock(mutex_);
  while (data_->next(row)) {
    if (!options_.shard.takes(row.index)) continue;
    if (row.columns.is_null()) {
      inputs = Value::object();
      rest = Value::object();
    } else {
      columns_.split(row.columns, inputs, rest);
    }
    if (already_done(row, inputs)) continue;
    ++counts_.in_flight;
    return true;
  }
  return false;
}

void Batch::release_row() {
  std::lock_guard lock(mutex_);
  --counts_.in_flight;
}

void Batch::run_row(DataRow& row, Value& inputs, Value& rest, EventSink& events, const Cancel& cancel_runs) {
  Value line{{"index", row.index}, {"line", row.line}, {"status", "ok"}, {"inputs", inputs}, {"data", std::move(rest)}};
  agent::RunResult result;
  if (!row.error.empty()) {
    result.error = agent::RunError{ErrorKind::DataBadRow, row.error, {}, {}};
    result.stopped_reason = StoppedReason::Error;
  } else {
    try {
      Value resolved = executor_->resolve_inputs(std::move(inputs));
      Cancel cancel(&cancel_runs, std::nullopt, "");
      std::optional<TraceContext> trace;
      if (options_.traced) trace = TraceContext::new_trace();
      result = executor_->run(resolved, events, agent::RunOptions{.cancel = &cancel, .trace = trace ? &*trace : nullptr});
    } catch (const Error& e) {
      result.error = agent::RunError::from(e);
      result.stopped_reason = stopped_reason_of(e.kind());
    }
  }
  bool abandoned = result.stopped_reason == StoppedReason::Cancelled && cancel_runs.stopped();
  if (!abandoned) {
    if (!result.ok()) line["status"] = "failed";
    Value run = result.to_json();
    for (auto& [key, value] : run.items()) line[key] = std::move(value);
    executor_->secrets()->mask(line);  // the results file is an output: the batch is its one writer
    if (options_.before_result) options_.before_result();
    results_.append(line);
  }
  std::lock_guard lock(mutex_);
  --counts_.in_flight;
  if (abandoned) return;
  ++counts_.done;
  if (!result.ok()) ++counts_.failed;
  counts_.tokens += result.usage.total();
  if (result.cost_usd) {
    counts_.cost_usd += *result.cost_usd;
    counts_.cost_known = true;
  }
  if (row.error.empty()) latencies_.push_back(result.elapsed_ms);  // a row that could not be read was not run
}

BatchSummary Batch::run(EventSink& events, const Cancel& stop_launching, const Cancel& cancel_runs) {
  auto start = Clock::now();
  SerialSink serial(events);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  Cancel stop_all(&stop_launching, std::nullopt, "");  // also when a worker fails (a full disk)
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard lock(failure_mutex);
    if (!failure) failure = e;
    stop_all.cancel();
  };
  // A fiber starts with the row it was made for, then takes the next ones: a batch never has more fibers than rows
  // (nor than --concurrency), and stops making them the moment it is told to stop.
  auto worker = [&](const std::shared_ptr<Slot>& slot) {
    Slot& s = *slot;
    try {
      do {
        run_row(s.row, s.inputs, s.rest, serial, cancel_runs);
      } while (!stop_all.stopped() && next_row(s.row, s.inputs, s.rest));
    } catch (...) {
      fail(std::current_exception());
    }
  };
  {
    // The runs in flight are fibers on a thread per core: a run waiting for its model holds no thread, so a
    // thousand at once cost a thousand small stacks, not a thousand threads (docs/architecture.md).
    FiberPool fibers(FiberPool::threads_for(options_.concurrency));
    for (size_t started = 0; started < options_.concurrency && !stop_all.stopped(); ++started) {
      auto slot = std::make_shared<Slot>();
      try {
        if (!next_row(slot->row, slot->inputs, slot->rest)) break;
      } catch (...) {
        fail(std::current_exception());
        break;
      }
      try {
        fibers.spawn([&worker, slot] { worker(slot); });
      } catch (const std::bad_alloc&) {
        // No memory (or address space: `ulimit -v`) for another stack. The row goes back unrun, and the runs
        // already in flight finish theirs before the batch reports it.
        release_row();
        fail(std::make_exception_ptr(
            Error(ErrorKind::EngineOutOfMemory, "no memory for run " + std::to_string(started + 1) + " of the " +
                                              std::to_string(options_.concurrency) +
                                              " at once (a fiber's stack); give a lower --concurrency")));
        break;
      }
    }
    fibers.join();
  }
  if (failure) std::rethrow_exception(failure);

  BatchSummary summary;
  summary.stopped = stop_launching.stopped();
  {
    std::lock_guard lock(mutex_);
    summary.counts = counts_;
    summary.latencies_ms = latencies_;
  }
  std::sort(summary.latencies_ms.begin(), summary.latencies_ms.end());
  if (!summary.stopped) results_.sort_by_index();
  results_.sync();
  summary.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

}  // namespace engine::app
