#pragma once
// The work of each step kind: render a template, ask the model once, run an agent (or any executor) on inputs
// rendered from templates.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/agent/structured_answer.h"
#include "engine/llm/llm_client.h"
#include "engine/tools/tool.h"
#include "engine/workflow/step.h"

namespace engine::workflow {

class Executor;

// kind: template. The output is the rendered text.
class TemplateWork : public StepWork {
 public:
  explicit TemplateWork(tmpl::Template text) : text_(std::move(text)) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const override;

 private:
  tmpl::Template text_;
};

// kind: llm. One prompt, sent as the user's message; the output is the model's text, or, with an output schema, the
// JSON value it answered (bare or in a ``` fence), checked against the schema: an answer that is not is the step's
// failure ("output.invalid"), which `retry` may try again.
class LlmWork : public StepWork {
 public:
  LlmWork(std::shared_ptr<const llm::LlmClient> llm, tmpl::Template prompt, agent::RunLimits limits,
          std::optional<agent::OutputSchema> output = std::nullopt)
      : llm_(std::move(llm)), prompt_(std::move(prompt)), limits_(std::move(limits)), output_(std::move(output)) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const override;
  Value rendered_inputs(const tmpl::Vars& vars) const override;

 private:
  std::shared_ptr<const llm::LlmClient> llm_;
  tmpl::Template prompt_;
  agent::RunLimits limits_;  // temperature, max_tokens and the price
  std::optional<agent::OutputSchema> output_;
};

// kind: tool. The input is rendered text, read as a JSON object for a tool with parameters and checked against them;
// a tool that fails fails the step.
class ToolWork : public StepWork {
 public:
  ToolWork(std::shared_ptr<const tools::Tool> tool, tmpl::Template input, Effect effect, Approval approval)
      : tool_(std::move(tool)), input_(std::move(input)), effect_(effect), approval_(approval) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const override;
  Value rendered_inputs(const tmpl::Vars& vars) const override;

 private:
  std::shared_ptr<const tools::Tool> tool_;
  tmpl::Template input_;
  Effect effect_;  // the workflow's `effect:`, else the tool's own
  Approval approval_;  // the workflow's `approve:` for it
};

// kind: agent. The agent's inputs are rendered from the step's templates; the output is the agent's answer. A
// failed run fails the step.
class SubRunWork : public StepWork {
 public:
  SubRunWork(std::shared_ptr<const Executor> executor, std::vector<std::pair<std::string, tmpl::Template>> inputs)
      : executor_(std::move(executor)), inputs_(std::move(inputs)) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const override;
  Value rendered_inputs(const tmpl::Vars& vars) const override;

 private:
  std::shared_ptr<const Executor> executor_;
  std::vector<std::pair<std::string, tmpl::Template>> inputs_;
};

// kind: lua. A script's function called with the step's inputs as one table (each rendered from its template);
// the output is what it returns (text, or a table as JSON). It runs in the sandbox Lua tools run in, a fresh state
// each time; an error or a limit fails the step.
class LuaWork : public StepWork {
 public:
  LuaWork(std::shared_ptr<const tools::Tool> script, std::vector<std::pair<std::string, tmpl::Template>> inputs)
      : script_(std::move(script)), inputs_(std::move(inputs)) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const override;
  Value rendered_inputs(const tmpl::Vars& vars) const override;

 private:
  std::shared_ptr<const tools::Tool> script_;
  std::vector<std::pair<std::string, tmpl::Template>> inputs_;
};

// kind: loop. The body's steps run as a graph of their own, again and again, until `until` holds over an
// iteration's steps or `max_iterations` have run. Each iteration reads the one before as `previous.NAME` (status
// not_run and output none in the first) and its number as `iteration` (from 0). The output is the last
// iteration's outputs by step name; the run's steps entry adds `iterations` and `until_met`.
class LoopWork : public StepWork {
 public:
  LoopWork(std::vector<Step> body, tmpl::Template until, int max_iterations)
      : body_(std::move(body)), until_(std::move(until)), max_iterations_(max_iterations) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink& events, const agent::RunOptions& options) const override;

 private:
  std::vector<Step> body_;
  tmpl::Template until_;
  int max_iterations_;
};

}  // namespace engine::workflow
