#include "engine/core/event.h"

namespace engine {

std::string_view event_name(EventType type) {
  switch (type) {
    case EventType::ChainStart: return "chain_start";
    case EventType::ChainEnd: return "chain_end";
    case EventType::LlmStart: return "llm_start";
    case EventType::LlmToken: return "llm_token";
    case EventType::AnswerToken: return "answer_token";
    case EventType::LlmRetry: return "llm_retry";
    case EventType::LlmEnd: return "llm_end";
    case EventType::AgentAction: return "agent_action";
    case EventType::AgentFinish: return "agent_finish";
    case EventType::ToolStart: return "tool_start";
    case EventType::ToolLog: return "tool_log";
    case EventType::ToolProgress: return "tool_progress";
    case EventType::ParserLog: return "parser_log";
    case EventType::ToolEnd: return "tool_end";
    case EventType::ParseError: return "parse_error";
    case EventType::EarlyStop: return "early_stop";
    case EventType::Error: return "error";
    case EventType::StepStart: return "step_start";
    case EventType::StepRetry: return "step_retry";
    case EventType::StepEnd: return "step_end";
  }
  return "unknown";
}

std::optional<EventType> event_type_named(std::string_view name) {
  for (int t = static_cast<int>(EventType::ChainStart); t <= static_cast<int>(EventType::StepEnd); ++t)
    if (event_name(static_cast<EventType>(t)) == name) return static_cast<EventType>(t);
  return std::nullopt;
}

bool is_full_detail_field(EventType type, std::string_view key) {
  if (type == EventType::LlmStart) return key == "prompt" || key == "messages";
  if (type == EventType::ChainStart) return key == "inputs";
  return false;
}

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
