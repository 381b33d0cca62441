#include "engine/core/event.h"

#include "engine/core/name_table.h"

namespace engine {
namespace {

constexpr Named<EventType> kEventNames[] = {
    {EventType::ChainStart, "chain_start"},   {EventType::ChainEnd, "chain_end"},
    {EventType::LlmStart, "llm_start"},       {EventType::LlmToken, "llm_token"},
    {EventType::AnswerToken, "answer_token"}, {EventType::LlmRetry, "llm_retry"},
    {EventType::LlmEnd, "llm_end"},           {EventType::AgentAction, "agent_action"},
    {EventType::AgentFinish, "agent_finish"}, {EventType::ToolStart, "tool_start"},
    {EventType::ToolLog, "tool_log"},         {EventType::ToolProgress, "tool_progress"},
    {EventType::ParserLog, "parser_log"},     {EventType::ToolEnd, "tool_end"},
    {EventType::ParseError, "parse_error"},   {EventType::EarlyStop, "early_stop"},
    {EventType::Error, "error"},              {EventType::StepStart, "step_start"},
    {EventType::StepRetry, "step_retry"},     {EventType::StepEnd, "step_end"},
};

constexpr Named<StepStatus> kStepStatusNames[] = {
    {StepStatus::Done, "done"}, {StepStatus::Skipped, "skipped"}, {StepStatus::Failed, "failed"}};

constexpr Named<ChainKind> kChainKindNames[] = {{ChainKind::Agent, "AgentExecutor"}, {ChainKind::Workflow, "Workflow"}};

// Each kind sits in the variant at its type's place, so `Event::type()` is the variant's index.
template <size_t... I>
constexpr bool kinds_in_order(std::index_sequence<I...>) {
  return ((static_cast<size_t>(std::variant_alternative_t<I, EventData>::type) == I) && ...);
}
static_assert(kinds_in_order(std::make_index_sequence<std::variant_size_v<EventData>>()));
static_assert(std::size(kEventNames) == std::variant_size_v<EventData>);

}  // namespace

std::string_view event_name(EventType type) { return name_in(kEventNames, type); }
std::optional<EventType> event_type_named(std::string_view name) { return value_named(kEventNames, name); }

std::string_view name_of(StepStatus status) { return name_in(kStepStatusNames, status); }
std::optional<StepStatus> step_status_named(std::string_view name) { return value_named(kStepStatusNames, name); }

std::string_view name_of(ChainKind kind) { return name_in(kChainKindNames, kind); }
std::optional<ChainKind> chain_kind_named(std::string_view name) { return value_named(kChainKindNames, name); }

void PlacingSink::receive(const Event& event, const EventPlace& place) {
  std::string_view run_id = run_id_.empty() ? place.run_id : std::string_view(run_id_);
  if (step_.empty() || place.step.empty()) {  // nothing to join: no string is built
    inner_.receive(event, EventPlace{run_id, step_.empty() ? place.step : std::string_view(step_)});
    return;
  }
  std::string step = step_;
  step += '/';
  step += place.step;
  inner_.receive(event, EventPlace{run_id, step});
}

}  // namespace engine
