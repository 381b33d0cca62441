#include "engine/core/stopped_reason.h"

#include "engine/core/name_table.h"

namespace engine {
namespace {

constexpr Named<StoppedReason> kStoppedReasonNames[] = {
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

std::string_view name_of(StoppedReason reason) { return name_in(kStoppedReasonNames, reason); }
std::optional<StoppedReason> stopped_reason_named(std::string_view name) { return value_named(kStoppedReasonNames, name); }

const std::vector<std::string>& stopped_reason_names() {
  static const std::vector<std::string> names = names_in(kStoppedReasonNames);
  return names;
}

StoppedReason stopped_reason_of(ErrorKind error_kind) {
  if (error_kind == ErrorKind::RunCancelled) return StoppedReason::Cancelled;
  if (error_kind == ErrorKind::RunTimeout) return StoppedReason::Timeout;
  return StoppedReason::Error;
}

}  // namespace engine
