#include "engine/workflow/step_kinds.h"

#include "engine/agent/llm_call.h"
#include "engine/core/error.h"
#include "engine/workflow/executor.h"

namespace engine::workflow {

StepOutcome TemplateWork::run(const tmpl::Vars& vars, EventSink&, const agent::RunOptions&) const {
  return StepOutcome{Value(text_.render(vars))};
}

StepOutcome LlmWork::run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const {
  llm::LlmRequest req;
  req.messages.push_back({"user", prompt_.render(vars), {}, ""});
  req.temperature = limits_.temperature;
  req.max_tokens = limits_.max_tokens;
  req.stream = options.stream;
  req.events = &events;
  agent::LlmCall call = agent::call_llm(*llm_, req, events, limits_.price);
  return StepOutcome{Value(std::move(call.response.text)), call.response.usage, 1, call.cost_usd};
}

StepOutcome SubRunWork::run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const {
  Value given = Value::object();
  for (const auto& [name, value] : inputs_) given[name] = value.render(vars);
  agent::RunResult r = executor_->run(executor_->resolve_inputs(std::move(given)), events, options);
  if (!r.ok()) throw Error(r.error->kind, r.error->message);
  StepOutcome out{std::move(r.output), r.usage, r.llm_calls, r.cost_usd.value_or(0)};
  return out;
}

}  // namespace engine::workflow
