#include "engine/core/stopped_reason.h"

#include <utility>

namespace engine {
namespace {

constexpr std::pair<StoppedReason, std::string_view> kStoppedReasonNames[] = {
    {StoppedReason::Finish, "finish"},
    {StoppedReason::ReturnDirect, "return_direct"},
    {StoppedReason::MaxIterations, "max_iterations"},
    {StoppedReason::MaxExecutionTime, "max_execution_time"},
    {StoppedReason::MaxTokensTotal, "max_tokens_total"},
    {StoppedReason::MaxCost, "max_cost"},
    {StoppedReason::Error, "error"},
    {StoppedReason::Cancelled, "cancelled"},
    {StoppedReason::Timeout, "timeout"},
};

}  // namespace

std::string_view name_of(StoppedReason reason) {
  for (const auto& [r, name] : kStoppedReasonNames)
    if (r == reason) return name;
  return "error";
}

std::optional<StoppedReason> stopped_reason_named(std::string_view name) {
  for (const auto& [r, n] : kStoppedReasonNames)
    if (n == name) return r;
  return std::nullopt;
}

const std::vector<std::string>& stopped_reason_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& [r, name] : kStoppedReasonNames) all.emplace_back(name);
    return all;
  }();
  return names;
}

StoppedReason stopped_reason_of(std::string_view error_kind) {
  if (error_kind == "run.cancelled") return StoppedReason::Cancelled;
  if (error_kind == "run.timeout") return StoppedReason::Timeout;
  return StoppedReason::Error;
}

}  // namespace engine
