#include "engine/cli/batch_progress.h"

#include <cmath>
#include <cstdio>

namespace engine::cli {
namespace {

std::string duration_text(double s) {
  char buf[32];
  if (s < 1) std::snprintf(buf, sizeof buf, "%.0f ms", s * 1000);
  else if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

std::string count_text(long n) {
  char buf[32];
  if (n < 10'000) std::snprintf(buf, sizeof buf, "%ld", n);
  else if (n < 10'000'000) std::snprintf(buf, sizeof buf, "%.1fk", static_cast<double>(n) / 1e3);
  else std::snprintf(buf, sizeof buf, "%.1fM", static_cast<double>(n) / 1e6);
  return buf;
}

std::string cost_text(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, usd < 1 ? "$%.4f" : "$%.2f", usd);
  return buf;
}

}  // namespace

std::string progress_text(const app::BatchCounts& c, double elapsed_s) {
  std::string text = std::to_string(c.done);
  if (c.total > 0) text += "/" + std::to_string(c.total);
  text += " done";
  if (c.failed > 0) text += ", " + std::to_string(c.failed) + " failed";
  if (c.resumed > 0) text += " (+" + std::to_string(c.resumed) + " resumed)";
  text += ", " + std::to_string(c.in_flight) + " running";
  double rate = elapsed_s > 0 ? static_cast<double>(c.done) / elapsed_s : 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f/s", rate);
  text += " · ";
  text += buf;
  if (c.total > 0 && rate > 0 && c.done < c.total)
    text += " · ETA " + duration_text(static_cast<double>(c.total - c.done) / rate);
  text += " · " + count_text(c.tokens) + " tokens";
  if (c.cost_known) text += " · " + cost_text(c.cost_usd);
  return text;
}

BatchProgress::BatchProgress(std::ostream& out, bool enabled, const app::Shard& shard, const std::string& source)
    : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()) {
  prefix_ = "batch";
  if (shard.count > 1)
    prefix_ += " [shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) +
               (source == "--shard" ? "" : ", from " + source) + "]";
  prefix_ += ": ";
}

BatchProgress::~BatchProgress() { stop(); }

void BatchProgress::start(std::function<app::BatchCounts()> counts) {
  counts_ = std::move(counts);
  start_ = std::chrono::steady_clock::now();
  if (!enabled_) return;
  drawer_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      draw(counts_());
      wake_.wait_for(lock, std::chrono::milliseconds(250), [&] { return stopping_; });
    }
  });
}

void BatchProgress::stop() {
  if (!drawer_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  drawer_.join();
  draw(counts_());
  out_ << "\n";
  out_.flush();
}

void BatchProgress::draw(const app::BatchCounts& counts) {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Back to the line's start, and clear it: the new text may be shorter.
  out_ << "\r\033[K" << prefix_ << progress_text(counts, elapsed);
  out_.flush();
}

void print_summary(std::ostream& out, const app::BatchSummary& s, const std::string& results_file) {
  const app::BatchCounts& c = s.counts;
  out << "batch: " << (s.stopped ? "stopped after " : "") << c.done << (c.done == 1 ? " row" : " rows") << ": "
      << c.done - c.failed << " ok, " << c.failed << " failed";
  if (c.resumed > 0) out << " (" << c.resumed << " done before)";
  out << " in " << duration_text(s.elapsed_s);
  if (!s.latencies_ms.empty())
    out << "; latency p50 " << duration_text(s.percentile_ms(50) / 1000.0) << ", p95 "
        << duration_text(s.percentile_ms(95) / 1000.0);
  out << "; " << count_text(c.tokens) << " tokens";
  if (c.cost_known) out << ", " << cost_text(c.cost_usd);
  out << "\nresults: " << results_file;
  if (s.stopped) out << " (run the same command again to go on)";
  out << std::endl;
}

}  // namespace engine::cli
