#pragma once
// `engine batch`: a workflow over every row of a data file, N runs at once sharing one executor, each result written
// as its run ends (batch_results.h), so a stopped batch resumes where it stopped.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/app/batch_data.h"
#include "engine/app/batch_results.h"
#include "engine/core/cancel.h"
#include "engine/core/event.h"
#include "engine/core/limits.h"
#include "engine/workflow/executor.h"

namespace engine::app {

// Which rows a process takes when a batch is spread over several (a Kubernetes Indexed Job, a Slurm array): row
// `index` belongs to shard `index % count`, so every shard's rows are known without reading the others'.
struct Shard {
  size_t index = 0;
  size_t count = 1;
  bool takes(size_t row) const { return row % count == index; }
};

// "K/N"; throws Error "usage".
Shard parse_shard(const std::string& text);
// The shard a process of a cluster job takes when --shard is not given: K from JOB_COMPLETION_INDEX (a Kubernetes
// Indexed Job) or SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN), N from `count` (--shards) or
// SLURM_ARRAY_TASK_COUNT; the whole data when neither names K. `env` reads a variable (null when unset). Throws Error
// "usage" for a K without an N, or values out of range. `source` says where K came from.
Shard shard_from_environment(size_t count, const std::function<const char*(const char*)>& env, std::string& source);

struct BatchOptions {
  std::filesystem::path data;
  std::filesystem::path out;
  std::vector<std::string> map;  // INPUT=COLUMN
  size_t concurrency = 4;        // 1 to limits::kBatchConcurrency; no more fibers than rows are made
  bool retry_failed = false;
  Shard shard;
  bool traced = false;  // each row's run is a trace of its own, its model requests sending traceparent
  // Called on a row's fiber, holding no lock, before its results line is written: what must be done first (the
  // run's record in the store, so that a line in the results file means a run in the store). None: nothing.
  std::function<void()> before_result;
};

// What the batch has done so far, as a progress line shows it; read while the batch runs.
struct BatchCounts {
  size_t total = 0;    // the rows this batch runs (its shard's, less those done before); 0 when unknown
  size_t resumed = 0;  // done by an earlier run of the batch
  size_t done = 0;     // finished by this run, ok or not
  size_t failed = 0;
  size_t in_flight = 0;
  long tokens = 0;
  double cost_usd = 0;
  bool cost_known = false;
};

struct BatchSummary {
  BatchCounts counts;
  std::vector<double> latencies_ms;  // of this run's finished rows, sorted
  double elapsed_s = 0;
  bool stopped = false;  // stopped before every row was run (SIGINT)

  double percentile_ms(double p) const;  // of latencies_ms; 0 when none
  Value to_json() const;
};

class Batch {
 public:
  // Reads the data's header and the results file of an earlier run (resuming it). When that file has lines and
  // the data is a regular file, the data is read through once first: every row it has a line for must be the one
  // it ran, so results from other data are refused before anything is appended. Throws Error "usage", "data.*",
  // "batch.*" or "io.*" before any run starts.
  Batch(std::shared_ptr<const workflow::Executor> executor, BatchOptions options);

  // Runs the rows not yet done, `options.concurrency` at once. `stop_launching` ends the batch after the runs in
  // flight; `cancel_runs` cancels them too (their rows are not written, and run again on resume). `events` receives
  // every run's events (tagged by run id); it must be safe to call from several threads.
  BatchSummary run(EventSink& events, const Cancel& stop_launching, const Cancel& cancel_runs);

  // A snapshot, safe from any thread while run() runs.
  BatchCounts counts() const;
  const ResultsFile& results() const { return results_; }

 private:
  void check_rows();  // counts the shard's rows and checks the results against them: one pass over the data
  bool next_row(DataRow& row, Value& inputs, Value& rest);
  bool already_done(const DataRow& row, const Value& inputs) const;
  void run_row(DataRow& row, Value& inputs, Value& rest, EventSink& events, const Cancel& cancel_runs);
  void release_row();  // a row taken by next_row that will not run

  // What a run in flight works on.
  struct Slot {
    DataRow row;
    Value inputs, rest;
  };

  std::shared_ptr<const workflow::Executor> executor_;
  BatchOptions options_;
  ColumnMap columns_;
  std::unique_ptr<DataReader> data_;  // before the results: a bad header creates no results file
  ResultsFile results_;
  mutable std::mutex mutex_;  // guards data_, counts_, latencies_
  BatchCounts counts_;
  std::vector<double> latencies_;
};

}  // namespace engine::app
