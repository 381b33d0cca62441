#pragma once
// The workflow's agent, react or tool_calling, with its prompt, parser, tools, limits, memory and output schema, every
// template checked against what the agent gives it.
#include <memory>

#include "engine/agent/agent.h"
#include "engine/llm/llm_client.h"
#include "engine/spec/workflow_spec.h"
#include "engine/tools/tool_registry.h"

namespace engine::assemble {

std::unique_ptr<agent::Agent> build_agent(const spec::WorkflowSpec& spec, const tools::ToolRegistry& registry,
                                          std::shared_ptr<const llm::LlmClient> llm);

}  // namespace engine::assemble
