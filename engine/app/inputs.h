#pragma once
// A run's inputs from what a person typed (--input key=value, --inputs FILE.json), and which input is the human's
// message in a chat.
#include <string>
#include <vector>

#include "engine/core/value.h"
#include "engine/workflow/executor.h"

namespace engine::app {

struct GivenInputs {
  std::vector<std::string> pairs;  // "key=value", or a bare value for the workflow's single input
  std::string file;                // a JSON file with an object of inputs; empty: none
};

// The inputs given, not yet checked against the workflow's (an input may still be missing); throws Error
// "input.*" for a bad file, a bare value the workflow cannot place, a NAME=value whose NAME is no input's
// ("input.unknown", with the nearest name) or an input given twice ("input.duplicate"). A pair overrides the file.
Value given_inputs(const workflow::Executor& executor, const GivenInputs& given);
// The run's inputs, checked against the workflow's declared inputs and completed by their defaults.
Value collect_inputs(const workflow::Executor& executor, const GivenInputs& given);

// Chats and sessions need to know which input is the human's message; throws Error "usage" when the workflow
// cannot tell.
void require_chat_input(const workflow::Executor& executor);
// The human's message of a run's resolved inputs, as a session records it (text, or a value's JSON text).
std::string chat_message(const workflow::Executor& executor, const Value& inputs);

}  // namespace engine::app
