#pragma once
// The workflow's agent, react or tool_calling, with its prompt, parser, tools, limits, memory and output schema, every
// template checked against what the agent gives it.
#include <memory>

#include "engine/agent/agent.h"
#include "engine/llm/llm_client.h"
#include "engine/net/io_threads.h"
#include "engine/spec/workflow_spec.h"
#include "engine/tools/tool_registry.h"

namespace engine::assemble {

// `io`: the I/O threads of the build (BuildOptions::io), for a Lua parser's grants.
std::unique_ptr<agent::Agent> build_agent(const spec::WorkflowSpec& spec, const tools::ToolRegistry& registry,
                                          std::shared_ptr<const llm::LlmClient> llm,
                                          const std::shared_ptr<net::IoThreads>& io);

}  // namespace engine::assemble
