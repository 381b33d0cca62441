#pragma once
// Picks and builds the LLM provider the workflow names.
#include <memory>

#include "engine/llm/llm_client.h"
#include "engine/spec/workflow_spec.h"

namespace engine::assemble {

std::shared_ptr<const llm::LlmClient> build_llm(const spec::WorkflowSpec& spec);

}  // namespace engine::assemble
