#pragma once
// What GET /metrics reports, in Prometheus's text format: requests by endpoint and status, runs in flight and
// waiting, run and model-call latency histograms, tokens, cost and errors by kind, per workflow. Updated from the
// serve thread (requests) and the runs' fibers (everything else); read on a scrape.
#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/app/result_documents.h"  // agent::RunResult, through app/ as the layering asks
#include "engine/core/event.h"

namespace engine::server {

class Metrics {
 public:
  // The endpoint a path is counted under: "invoke", "chat_completions", ... ("other" for the rest, so a client
  // probing random paths cannot grow the label set).
  static std::string_view endpoint_of(std::string_view path);

  void count_request(std::string_view endpoint, int status);
  void count_run(const std::string& workflow, const agent::RunResult& result);
  void time_model_call(const std::string& workflow, double seconds);

  std::string text(size_t runs_running, size_t runs_waiting) const;

 private:
  static constexpr std::array<double, 14> kBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
    void observe(double seconds);
  };
  struct PerWorkflow {
    Histogram runs;
    Histogram model_calls;
    uint64_t prompt_tokens = 0;
    uint64_t completion_tokens = 0;
    double cost_usd = 0;
    std::map<std::string, uint64_t> stopped;  // by stopped_reason
    std::map<std::string, uint64_t> errors;   // by kind
  };

  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, PerWorkflow> workflows_;
};

// Times a run's model calls (llm_start to llm_end) into the server's metrics. One per run.
class ModelCallTimer : public EventSink {
 public:
  ModelCallTimer(Metrics& metrics, const std::string& workflow, EventSink* next = nullptr)
      : metrics_(metrics), workflow_(workflow), next_(next) {}
  void receive(const Event& event, const EventPlace& place) override;
  EventDetail detail() const override { return next_ ? next_->detail() : EventDetail::Summary; }

 private:
  Metrics& metrics_;
  const std::string& workflow_;
  EventSink* next_;
  std::mutex mu_;  // a workflow's parallel steps call models at once
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> started_;
};

}  // namespace engine::server
