#include "engine/workflow/step_kinds.h"

#include "engine/agent/llm_call.h"
#include "engine/core/error.h"
#include "engine/tools/journaled_call.h"
#include "engine/workflow/executor.h"
#include "engine/workflow/scheduler.h"

namespace engine::workflow {
namespace {

// Named templates rendered into an object of their texts: a step's inputs.
Value render_each(const std::vector<std::pair<std::string, tmpl::Template>>& named, const tmpl::Vars& vars) {
  Value given = Value::object();
  for (const auto& [name, value] : named) given[name] = value.render(vars);
  return given;
}

}  // namespace


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
  req.cancel = options.cancel;
  req.run_state = options.llm_state;
  agent::LlmCall call = agent::call_llm(*llm_, req, events, limits_.price, options.usage, options.trace, options.journal);
  StepOutcome out{Value(std::move(call.response.text))};
  if (!output_) return out;
  Value answer;
  if (std::string wrong = agent::read_answer(*output_, out.output.get_ref<const std::string&>(), answer); !wrong.empty())
    throw Error(ErrorKind::OutputInvalid, wrong);
  out.output = std::move(answer);
  return out;
}

Value LlmWork::rendered_inputs(const tmpl::Vars& vars) const { return Value{{"prompt", prompt_.render(vars)}}; }

StepOutcome ToolWork::run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const {
  Value input = input_.render(vars);
  if (std::string refused = tools::prepare_arguments(*tool_, input); !refused.empty())
    throw Error(ErrorKind::ToolInvalidArguments, "tool '" + tool_->name() + "': " + refused);
  // One call at a time at a step's path (an item of a for_each has its own), so one id pairs its start and end.
  std::string span_id = options.trace ? new_span_id() : std::string();  // as an agent's tool call has (run_core.cpp)
  events.emit({events::ToolStart{tool_->name(), "call_1", input, span_id}});
  auto instance = tool_->instantiate({&events, options.cancel, nullptr, options.trace});
  tools::ToolResult r = tools::call_approved(*instance, *tool_, effect_, {approval_, options.approve_asked, options.decide}, input,
                                             span_id, options.journal, "call_1", options.cancel);
  events.emit({events::ToolEnd{tool_->name(), "call_1", r.output, r.ok() ? "" : std::string(name_of(*r.error_kind))}});
  if (options.cancel && options.cancel->stopped()) throw_stopped(*options.cancel);  // whatever the tool answered
  if (!r.ok()) throw Error(*r.error_kind, r.text());
  return StepOutcome{std::move(r.output)};
}

Value ToolWork::rendered_inputs(const tmpl::Vars& vars) const { return Value{{"input", input_.render(vars)}}; }

StepOutcome LoopWork::run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const {
  const Value* inputs = vars.find("inputs");
  const Value* outer = vars.find("steps");  // the steps outside the loop that it reads
  Value previous = Value::object();
  for (const auto& step : body_) previous[step.name] = Value{{"status", "not_run"}, {"output", nullptr}};
  StepOutcome out;
  bool met = false;
  int iterations = 0;
  while (!met && iterations < max_iterations_) {
    Value base{{"steps", outer ? *outer : Value::object()}, {"previous", std::move(previous)},
               {"iteration", iterations}};
    GraphRun g = run_graph(body_, *inputs, events, options, kDefaultMaxParallel,
                           GraphContext{&base, "[" + std::to_string(iterations) + "]"});  // from 0, as `iteration`
    ++iterations;
    if (g.error) throw g.error->to_error("iteration " + std::to_string(iterations - 1) + ": ");
    // `until` reads this iteration's steps over the outer ones; the next iteration reads them as `previous`.
    Value now{{"steps", std::move(base["steps"])}, {"iteration", iterations - 1}};
    previous = Value::object();
    out.output = Value::object();
    for (auto& [name, entry] : g.steps.items()) {
      Value seen{{"status", entry["status"]}, {"output", entry["output"]}};
      now["steps"][name] = seen;
      out.output[name] = entry["output"];
      previous[name] = std::move(seen);
    }
    met = until_.test(tmpl::Vars::of(now).then_named("inputs", *inputs).then(*inputs));
  }
  out.details = Value{{"iterations", iterations}, {"until_met", met}};
  return out;
}

StepOutcome SubRunWork::run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const {
  Value given = rendered_inputs(vars);
  agent::RunResult r = executor_->run(executor_->resolve_inputs(std::move(given)), events, options);
  if (!r.ok()) throw r.error->to_error();
  return StepOutcome{std::move(r.output)};
}

Value SubRunWork::rendered_inputs(const tmpl::Vars& vars) const { return render_each(inputs_, vars); }

StepOutcome LuaWork::run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const {
  auto instance = script_->instantiate({&events, options.cancel, nullptr, options.trace});
  tools::ToolResult r = tools::call_journaled(*instance, *script_, script_->effect(), rendered_inputs(vars), "",
                                              options.journal, "script", options.cancel);
  if (options.cancel && options.cancel->stopped()) throw_stopped(*options.cancel);  // whatever the script answered
  if (!r.ok()) throw Error(*r.error_kind, r.text());
  return StepOutcome{std::move(r.output)};
}

Value LuaWork::rendered_inputs(const tmpl::Vars& vars) const { return render_each(inputs_, vars); }

}  // namespace engine::workflow
