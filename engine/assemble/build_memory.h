#pragma once
// agent.memory and the chat prompt's placeholders, checked against what the prompt reads: a memory nothing reads,
// or a history read without a memory, would be a conversation that silently forgets.
#include <string>
#include <vector>

#include "engine/agent/memory.h"
#include "engine/agent/prompt.h"
#include "engine/spec/workflow_spec.h"
#include "engine/template/template.h"

namespace engine::assemble {

// A template the agent renders into its prompt, and where the workflow wrote it.
struct PromptPart {
  const tmpl::Template* tmpl;
  SourceLoc loc;
};

// `parts` are every template the agent renders into its prompt (the prompt's own, and the scratchpad).
agent::Memory build_memory(const spec::WorkflowSpec& spec, const agent::Prompt& prompt,
                           const std::vector<PromptPart>& parts);

// The input that holds the human's message in a chat: agent.memory.input_key, else `input`, else the only input;
// empty when none can be told (a chat then needs input_key). Throws a located Error for an input_key that is not
// a declared input, or a memory with no input to remember.
std::string chat_input(const spec::WorkflowSpec& spec);

}  // namespace engine::assemble
