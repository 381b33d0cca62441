#pragma once
// Loading a workflow as a front end asks for it: from its file, on the default search path, with the command
// line's overrides (another model, a recording) applied before anything is built.
#include <memory>
#include <string>
#include <vector>

#include "engine/assemble/build_executor.h"
#include "engine/workflow/executor.h"

namespace engine::app {

struct LoadOptions {
  // PROVIDER:MODEL or replay:FILE: every model the file names (the workflow's and its steps' own) is replaced.
  // Empty: the file's own.
  std::string llm;
  std::string record_file;  // every request and response of the workflow's model as JSON lines
  // How many model calls may be in flight when the workflow's llm.max_concurrent_calls says nothing (0: the
  // engine's default, for one run at a time), and the pace every call of every run keeps.
  size_t calls_in_flight = 0;
  llm::RateLimits rate_limits;
  // Whether MCP servers are started to list their tools (assemble::BuildOptions::connect_mcp).
  bool connect_mcp = true;
  // Where the load puts the secrets it reads: the front end's set, which its outputs mask (core/secret_set.h).
  // Null: a set of the workflow's own.
  std::shared_ptr<SecretSet> secrets;
  // The process's I/O threads (net/io_threads.h): a front end that loads many workflows gives them all one, so the
  // threads do not grow with what is served. Null: the workflow's own.
  std::shared_ptr<net::IoThreads> io;
};

// The providers `--llm PROVIDER:MODEL` takes: openai, ollama, llamacpp, anthropic, replay.
const std::vector<std::string>& llm_providers();

// The names a workflow may be given by besides a file here: the ENGINE_PATH folders' and the installed examples'.
std::vector<std::string> installed_workflow_names();

// Where the documentation is (installed: <prefix>/share/engine/docs), or "" when this engine has none beside it.
std::string documentation_folder();

// The `llm` of LoadOptions from a front end's --llm PROVIDER:MODEL and --replay FILE (which is --llm replay:FILE);
// throws Error "usage" when both are given.
std::string model_override(const std::string& llm, const std::string& replay_file);

// Throws a located Error for anything wrong in the file, and Error "usage" for a malformed `llm` override.
std::shared_ptr<const workflow::Executor> load_executor(const std::string& path, const LoadOptions& options = {});

}  // namespace engine::app
