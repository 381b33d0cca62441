#pragma once
// A workflow as an agent's tool (cagent's sub-agents, LangChain's agents as tools): its declared inputs are the
// tool's parameters, and its answer is the tool's output. A workflow of one input takes text, as a single-input tool.
#include <memory>

#include "engine/tools/tool.h"
#include "engine/workflow/executor.h"

namespace engine::workflow {

class WorkflowTool : public tools::Tool {
 public:
  // `name` and `description` default to the workflow's own.
  WorkflowTool(std::shared_ptr<const Executor> executor, std::string name, std::string description,
               std::string workflow_description);
  std::string kind() const override { return "workflow"; }
  // Made again after a crash: its own calls are journaled under the call, so the second pass replays them and each
  // keeps its own effect's rule.
  Effect effect() const override { return Effect::Read; }
  std::unique_ptr<tools::ToolInstance> instantiate(const tools::ToolContext& context) const override;

  // The JSON Schema of a workflow's inputs: each a string, those without a default required; null for one input.
  static Value parameters_of(const Executor& executor);

 private:
  std::shared_ptr<const Executor> executor_;
};

}  // namespace engine::workflow
