#include "engine/agent/run_result.h"

namespace engine::agent {

Value step_to_json(const AgentStep& s) {
  return Value{{"action", {{"tool", s.action.tool}, {"tool_input", s.action.tool_input}, {"log", s.action.log}}},
               {"observation", s.observation}};
}

void RunResult::take_usage(const SpentUsage& spent, bool priced) {
  usage.prompt_tokens = spent.prompt_tokens;
  usage.completion_tokens = spent.completion_tokens;
  llm_calls = spent.llm_calls;
  if (priced || spent.priced_calls > 0) cost_usd = spent.cost_usd;
}

Value RunResult::usage_json() const {
  Value u{{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.total()},
          {"llm_calls", llm_calls}};
  if (cost_usd) u["cost_usd"] = *cost_usd;
  return u;
}

events::ChainEnd RunResult::chain_end() const {
  events::ChainEnd end{output, stopped_reason, elapsed_ms, {}, std::nullopt};
  end.usage = {usage.prompt_tokens, usage.completion_tokens, usage.total(), llm_calls, cost_usd};
  if (error) end.error = error->info();
  return end;
}

RunError RunError::from(const Error& e, const std::string& prefix) {
  return RunError{e.kind(), prefix + e.message(), e.loc(), e.source_line()};
}

Value RunError::to_json() const {
  Value j{{"kind", kind}, {"message", message}};
  if (at.known()) j["at"] = at.str();
  return j;
}

events::ErrorInfo RunError::info() const { return {std::string(name_of(kind)), message, at.known() ? at.str() : std::string()}; }

Value RunResult::to_json() const {
  Value agent_steps = Value::array();
  for (const auto& s : intermediate_steps) agent_steps.push_back(step_to_json(s));
  Value j{{"output", output},
          {"outputs", outputs},
          {"intermediate_steps", std::move(agent_steps)},
          {"usage", usage_json()},
          {"elapsed_ms", elapsed_ms},
          {"stopped_reason", name_of(stopped_reason)}};
  if (!steps.empty()) j["steps"] = steps;
  if (!run_id.empty()) j["run_id"] = run_id;
  if (error) j["error"] = error->to_json();
  return j;
}

}  // namespace engine::agent
