#pragma once
// Picks and builds the LLM provider the workflow names, wrapped in a recorder when the run is recorded.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/llm/llm_client.h"
#include "engine/llm/llm_gate.h"
#include "engine/net/io_threads.h"
#include "engine/spec/workflow_spec.h"

namespace engine::workflow {
class Executor;
}

namespace engine::assemble {

// How many model calls may be in flight at once, in all the steps, agents and sub-workflows of an executor.
inline constexpr size_t kDefaultLlmConcurrency = 8;

// The executors built for sub-workflows, by their spec: a file named by many steps and tools (loaded once,
// spec/LoadedWorkflows) is built once, and its immutable executor shared.
using BuiltExecutors = std::map<const spec::WorkflowSpec*, std::shared_ptr<const workflow::Executor>>;

struct BuildOptions {
  std::string record_file;  // --record FILE: every request and response as JSON lines
  // The cap every model client built with these options shares; build_executor makes one when none is given.
  std::shared_ptr<llm::LlmGate> llm_gate;
  std::shared_ptr<BuiltExecutors> built;  // shared by one build's sub-workflows; build_executor makes it
  // Whether MCP servers are started to list their tools. Without, a server's tools are those the workflow names
  // (for `engine validate`, which starts nothing).
  bool connect_mcp = true;
  // The process's I/O threads: the transport every HTTP client built drives its transfers from fibers on, and the
  // watch on every MCP server's pipes (net/io_threads.h). A front end that builds many workflows (engine serve) gives
  // them all one; build_executor makes one when none is given.
  std::shared_ptr<net::IoThreads> io;
  // A validation's problems (core/diagnostics.h): each tool, step, agent and output is built on its own, a problem
  // noted and the rest still built; the executor is then not made (null). Sub-workflows are built without: their
  // first problem is noted where the step or tool names them.
  Diagnostics* found = nullptr;
};

std::shared_ptr<const llm::LlmClient> build_llm(const spec::WorkflowSpec& spec, const BuildOptions& options = {});
// A step's own model (`at` is its key, "steps.NAME.llm"): it passes the same gate; --record does not record it.
std::shared_ptr<const llm::LlmClient> build_step_llm(const spec::LlmSpec& llm, const std::string& at,
                                                     const spec::WorkflowSpec& spec, const BuildOptions& options);

// The price of the workflow's model from llm.prices, if it lists one.
std::optional<spec::ModelPrice> model_price(const spec::LlmSpec& llm);

}  // namespace engine::assemble
