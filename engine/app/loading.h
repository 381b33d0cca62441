#pragma once
// Loading a workflow as a front end asks for it: from its file, on the default search path, with the command
// line's overrides (another model, a recording) applied before anything is built.
#include <memory>
#include <string>

#include "engine/assemble/build_executor.h"
#include "engine/workflow/executor.h"

namespace engine::app {

struct LoadOptions {
  // PROVIDER:MODEL or replay:FILE: every model the file names (the workflow's and its steps' own) is replaced.
  // Empty: the file's own.
  std::string llm;
  std::string record_file;  // every request and response of the workflow's model as JSON lines
  // The cap (and pace) every model call of the executor passes; empty: the workflow's llm.max_concurrent_calls.
  std::shared_ptr<llm::LlmGate> llm_gate;
};

// Throws a located Error for anything wrong in the file, and Error "usage" for a malformed `llm` override.
std::shared_ptr<const workflow::Executor> load_executor(const std::string& path, const LoadOptions& options = {});

}  // namespace engine::app
