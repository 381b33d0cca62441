#include "engine/server/metrics.h"

#include <cstdio>

namespace engine::server {
namespace {

// A label value as the text format wants it: backslash, quote and line feed escaped.
std::string label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void help(std::string& out, const char* name, const char* type, const char* text) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += text;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

}  // namespace

std::string_view Metrics::endpoint_of(std::string_view path) {
  constexpr std::string_view kWorkflows = "/v1/workflows/";
  if (path.substr(0, kWorkflows.size()) == kWorkflows) {
    size_t slash = path.rfind('/');
    std::string_view action = path.substr(slash + 1);
    if (action == "invoke" || action == "stream" || action == "batch") return action;
    return "other";
  }
  if (path == "/v1/chat/completions") return "chat_completions";
  if (path == "/v1/models") return "models";
  if (path == "/v1/workflows") return "workflows";
  if (path == "/healthz") return "healthz";
  if (path == "/readyz") return "readyz";
  if (path == "/metrics") return "metrics";
  if (path == "/mcp") return "mcp";
  if (path == "/v1/runs" || path.substr(0, 9) == "/v1/runs/") return "runs";
  if (path == "/ui" || path.substr(0, 4) == "/ui/") return "ui";
  return "other";
}

void Metrics::Histogram::observe(double seconds) {
  for (size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) ++counts[i];
  ++count;
  sum += seconds;
}

void Metrics::count_request(std::string_view endpoint, int status) {
  std::lock_guard lock(mu_);
  ++requests_[{std::string(endpoint), status}];
}

void Metrics::count_run(const std::string& workflow, const agent::RunResult& result) {
  std::lock_guard lock(mu_);
  PerWorkflow& w = workflows_[workflow];
  w.runs.observe(result.elapsed_ms / 1000);
  w.prompt_tokens += static_cast<uint64_t>(result.usage.prompt_tokens);
  w.completion_tokens += static_cast<uint64_t>(result.usage.completion_tokens);
  if (result.cost_usd) w.cost_usd += *result.cost_usd;
  ++w.stopped[std::string(name_of(result.stopped_reason))];
  if (result.error) ++w.errors[std::string(name_of(result.error->kind))];
}

void Metrics::time_model_call(const std::string& workflow, double seconds) {
  std::lock_guard lock(mu_);
  workflows_[workflow].model_calls.observe(seconds);
}

std::string Metrics::text(size_t runs_running, size_t runs_waiting) const {
  std::lock_guard lock(mu_);
  std::string out;
  help(out, "engine_http_requests_total", "counter", "HTTP requests answered, by endpoint and status.");
  for (const auto& [key, n] : requests_)
    out += "engine_http_requests_total{endpoint=\"" + key.first + "\",status=\"" + std::to_string(key.second) +
           "\"} " + std::to_string(n) + "\n";
  help(out, "engine_runs_in_flight", "gauge", "Runs going now.");
  out += "engine_runs_in_flight " + std::to_string(runs_running) + "\n";
  help(out, "engine_runs_waiting", "gauge", "Runs admitted and waiting for a slot.");
  out += "engine_runs_waiting " + std::to_string(runs_waiting) + "\n";
  auto histogram = [&](const char* name, const char* text, const Histogram PerWorkflow::*which) {
    help(out, name, "histogram", text);
    for (const auto& [workflow, w] : workflows_) {
      const Histogram& h = w.*which;
      std::string wf = "workflow=\"" + label(workflow) + "\"";
      for (size_t i = 0; i < kBuckets.size(); ++i)
        out += std::string(name) + "_bucket{" + wf + ",le=\"" + number(kBuckets[i]) + "\"} " + std::to_string(h.counts[i]) + "\n";
      out += std::string(name) + "_bucket{" + wf + ",le=\"+Inf\"} " + std::to_string(h.count) + "\n";
      out += std::string(name) + "_sum{" + wf + "} " + number(h.sum) + "\n";
      out += std::string(name) + "_count{" + wf + "} " + std::to_string(h.count) + "\n";
    }
  };
  histogram("engine_run_duration_seconds", "How long runs took, by workflow.", &PerWorkflow::runs);
  histogram("engine_model_call_duration_seconds", "How long model calls took, by workflow.", &PerWorkflow::model_calls);
  help(out, "engine_tokens_total", "counter", "Tokens the runs' model calls used, by workflow and kind.");
  for (const auto& [workflow, w] : workflows_) {
    out += "engine_tokens_total{workflow=\"" + label(workflow) + "\",kind=\"prompt\"} " + std::to_string(w.prompt_tokens) + "\n";
    out += "engine_tokens_total{workflow=\"" + label(workflow) + "\",kind=\"completion\"} " +
           std::to_string(w.completion_tokens) + "\n";
  }
  help(out, "engine_cost_usd_total", "counter", "What the runs' model calls cost, where the price is known.");
  for (const auto& [workflow, w] : workflows_)
    out += "engine_cost_usd_total{workflow=\"" + label(workflow) + "\"} " + number(w.cost_usd) + "\n";
  help(out, "engine_runs_total", "counter", "Runs ended, by workflow and how they stopped.");
  for (const auto& [workflow, w] : workflows_)
    for (const auto& [reason, n] : w.stopped)
      out += "engine_runs_total{workflow=\"" + label(workflow) + "\",stopped_reason=\"" + label(reason) + "\"} " +
             std::to_string(n) + "\n";
  help(out, "engine_run_errors_total", "counter", "Failed runs, by workflow and error kind (docs/errors.md).");
  for (const auto& [workflow, w] : workflows_)
    for (const auto& [kind, n] : w.errors)
      out += "engine_run_errors_total{workflow=\"" + label(workflow) + "\",kind=\"" + label(kind) + "\"} " +
             std::to_string(n) + "\n";
  return out;
}

void ModelCallTimer::receive(const Event& event, const EventPlace& place) {
  if (event.type() == EventType::LlmStart || event.type() == EventType::LlmEnd) {
    std::string key = std::string(place.run_id) + "/" + std::string(place.step);
    auto now = event.at;
    std::lock_guard lock(mu_);
    if (event.type() == EventType::LlmStart) {
      started_[key] = now;
    } else if (auto it = started_.find(key); it != started_.end()) {
      metrics_.time_model_call(workflow_, std::chrono::duration<double>(now - it->second).count());
      started_.erase(it);
    }
  }
  if (next_) next_->receive(event, place);
}

}  // namespace engine::server
