#pragma once
// What a person watching a batch sees on stderr: one progress line, redrawn in place while the batch runs (done,
// failed, rate, ETA, tokens, cost), and the summary when it ends.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "engine/app/batch.h"

namespace engine::cli {

// The progress line's text for `counts` after `elapsed_s`.
std::string progress_text(const app::BatchCounts& counts, double elapsed_s);

class BatchProgress {
 public:
  // Draws nothing unless `enabled` (a terminal, or --progress).
  BatchProgress(std::ostream& out, bool enabled, const app::Shard& shard, const std::string& shard_source);
  ~BatchProgress();
  BatchProgress(const BatchProgress&) = delete;
  BatchProgress& operator=(const BatchProgress&) = delete;

  // Redraws the line from `counts` a few times a second, from a thread of its own, until stop().
  void start(std::function<app::BatchCounts()> counts);
  // Draws it a last time and leaves the line for what follows.
  void stop();

 private:
  void draw(const app::BatchCounts& counts);

  std::ostream& out_;
  bool enabled_;
  std::string prefix_;
  std::chrono::steady_clock::time_point start_;
  std::function<app::BatchCounts()> counts_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread drawer_;
};

// "batch: 20 rows: 19 ok, 1 failed in 3.2 s; latency p50 812 ms, p95 1.9 s; 4,210 tokens, $0.0120" and where the
// results are.
void print_summary(std::ostream& out, const app::BatchSummary& summary, const std::string& results_file);

}  // namespace engine::cli
