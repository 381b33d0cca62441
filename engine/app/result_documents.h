#pragma once
// Workflows and runs as JSON documents, as the front ends hand them out (engine serve's endpoints). Secrets are
// masked where the documents leave the process (the server's exchange, the console), not here.
#include <string>

#include "engine/agent/run_result.h"
#include "engine/workflow/executor.h"

namespace engine::app {

// {name, description, input_schema, output_schema, chat_input}; the schemas are JSON Schema objects built from the
// declared inputs (required unless they have a default; typed as their default is, else as text) and outputs.
Value workflow_document(const workflow::Executor& executor, const std::string& name);

// {run_id, output, outputs, usage, stopped_reason, elapsed_ms} and, for a failed run, error {message, code} (code:
// the error's kind).
Value run_document(const agent::RunResult& result);

}  // namespace engine::app
