#include "engine/cli/eval_table.h"

#include <algorithm>
#include <cstdio>

namespace engine::cli {

void print_evaluation(std::ostream& out, const app::EvaluationReport& report) {
  size_t width = 9;  // "evaluator"
  for (const auto& e : report.evaluators) width = std::max(width, e.name.size());
  char line[256];
  std::snprintf(line, sizeof line, "%-*s  %-15s  %6s  %9s  %s\n", static_cast<int>(width), "evaluator", "kind", "mean",
                "pass rate", "threshold");
  out << line;
  for (const auto& e : report.evaluators) {
    std::string threshold = "-";
    if (e.threshold) {
      char t[32];
      std::snprintf(t, sizeof t, "%.0f%% %s", *e.threshold * 100, e.ok() ? "ok" : "FAILED");
      threshold = t;
    }
    std::snprintf(line, sizeof line, "%-*s  %-15s  %6.3f  %8.1f%%  %s\n", static_cast<int>(width), e.name.c_str(),
                  e.kind.c_str(), e.mean(), e.pass_rate() * 100, threshold.c_str());
    out << line;
  }
  out << report.lines << (report.lines == 1 ? " line" : " lines") << " scored"
      << (report.ok() ? "" : "; an evaluator is below its threshold") << "\n";
  // Which rows to look at: each evaluator's failures by their line in the data file.
  bool any = false;
  for (const auto& e : report.evaluators) {
    size_t failed = e.lines - e.passed;
    if (failed == 0) continue;
    if (!any) out << "failed, by line of the data file:\n";
    any = true;
    std::string list;
    constexpr size_t kShown = 20;
    for (size_t i = 0; i < e.failed_lines.size() && i < kShown; ++i) list += (i ? ", " : "") + std::to_string(e.failed_lines[i]);
    if (failed > std::min(kShown, e.failed_lines.size())) list += " and " + std::to_string(failed - std::min(kShown, e.failed_lines.size())) + " more";
    std::snprintf(line, sizeof line, "  %-*s  ", static_cast<int>(width), e.name.c_str());
    out << line << list << "\n";
  }
  out.flush();
}

}  // namespace engine::cli
