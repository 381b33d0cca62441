#pragma once
// Spec -> the immutable workflow::Executor: every static check happens here, before any LLM call.
#include <memory>

#include "engine/assemble/build_llm.h"
#include "engine/spec/workflow_spec.h"
#include "engine/workflow/executor.h"

namespace engine::assemble {

// Throws a located Error for anything wrong in the workflow; with options.found (a validation), notes every problem
// it finds and returns null when there was one.
std::shared_ptr<const workflow::Executor> build_executor(const spec::WorkflowSpec& spec,
                                                         const BuildOptions& options = {});

}  // namespace engine::assemble
