#pragma once
// A workflow's steps, built and checked before any call: every template compiled, every reference to a step or an
// input found (following attribute paths: steps.NAME.output), the graph's edges drawn from those references, and a
// cycle refused with its path.
#include <memory>
#include <vector>

#include "engine/assemble/build_llm.h"
#include "engine/llm/llm_client.h"
#include "engine/spec/workflow_spec.h"
#include "engine/tools/tool_registry.h"
#include "engine/workflow/step.h"

namespace engine::assemble {

// `llm` is the workflow's model, null when it names none (then only template steps are allowed, which the loader
// checked).
// Sub-workflow steps are built with `options` (the shared cap on model calls).
// With `found`, a step's problem is noted and the step built without its work: what reads it is checked still.
std::vector<workflow::Step> build_steps(const spec::WorkflowSpec& spec, const tools::ToolRegistry& registry,
                                        std::shared_ptr<const llm::LlmClient> llm, const BuildOptions& options,
                                        Diagnostics* found = nullptr);

// What a declared output of a workflow of steps may read: `inputs`, each input by name, and `steps.NAME.output` /
// `steps.NAME.status` of an existing step. Returns the indices of the steps it reads; throws a located Error for
// anything else.
std::vector<size_t> step_references(const tmpl::Template& t, const std::string& what, const SourceLoc& loc,
                                    const spec::WorkflowSpec& spec, Diagnostics* found = nullptr);

}  // namespace engine::assemble
