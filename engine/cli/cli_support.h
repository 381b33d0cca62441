#pragma once
// What several commands share: building the executor, reading --input/--inputs, reporting errors.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/assemble/build_executor.h"

namespace CLI {
class App;
}

namespace engine::cli {

struct InputOptions {
  std::vector<std::string> pairs;  // --input: "key=value" or a bare value for the workflow's single input
  std::string file;                // --inputs FILE.json
};

void add_input_options(CLI::App& cmd, InputOptions& options);

// `llm_override` is --llm PROVIDER:MODEL or replay:FILE (empty: the workflow's own llm block).
std::shared_ptr<const workflow::Executor> build_executor(const std::string& workflow_path,
                                                         const std::string& llm_override = "",
                                                         const assemble::BuildOptions& options = {});
// The inputs the options give, not yet checked against the workflow's (an input may still be missing).
Value given_inputs(const workflow::Executor& executor, const InputOptions& options);
// The run's inputs from the options, checked against the workflow's declared inputs; throws Error "input.*".
Value collect_inputs(const workflow::Executor& executor, const InputOptions& options);

// Chats and sessions need to know which input is the human's message; throws Error "usage" when the workflow
// cannot tell.
void require_chat_input(const workflow::Executor& executor);
// The human's message of a run's resolved inputs, as a session records it (text, or a value's JSON text).
std::string chat_message(const workflow::Executor& executor, const Value& inputs);

// Runs `body`, turning an Error into "engine: error: ..." on stderr and exit code 2 (bad input).
int guarded(const std::function<int()>& body);
void print_error(const std::string& formatted);
// `text` with the values of OPENAI_API_KEY and ANTHROPIC_API_KEY (and their pieces) masked.
std::string redact_environment_keys(const std::string& text);

bool stderr_wants_color(bool no_color_flag);
bool stderr_is_terminal();

}  // namespace engine::cli
