#pragma once
// A workflow ready to run: built once by assemble/ (templates and regexes compiled, tools loaded, provider chosen),
// then immutable, so batch runs and chat sessions share it across threads. A run owns all its state.
#include <atomic>
#include <filesystem>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/agent.h"
#include "engine/core/secret_set.h"
#include "engine/template/template.h"
#include "engine/tools/tool_registry.h"
#include "engine/workflow/scheduler.h"
#include "engine/workflow/step.h"

namespace engine::workflow {

// A declared input: what the workflow asks for, and the value it takes when none is given.
struct Input {
  std::string name;
  std::string description;
  std::optional<Value> default_value;  // absent: the input is required
  std::string type;  // declared: a value given is checked, a text read as it (input_types.h); empty: any value
};

// A declared output: a template over the run's inputs, output, intermediate_steps and stopped_reason.
struct OutputTemplate {
  std::string name;
  tmpl::Template value;
  std::string description;
};

class Executor {
 public:
  // What assemble/ builds an executor from.
  struct Parts {
    std::string name;
    std::string description;
    std::vector<Input> inputs;
    tools::ToolRegistry tools;
    std::unique_ptr<agent::Agent> agent;  // a workflow of one agent...
    std::vector<Step> steps;              // ...or of steps (agent null)
    std::optional<llm::Price> price;      // the model's, when known: a workflow of steps then reports its cost
    std::vector<OutputTemplate> outputs;
    std::shared_ptr<const SecretSet> secrets = std::make_shared<const SecretSet>();
    // The input that holds the human's message in a chat; empty when the workflow cannot tell.
    std::string chat_input;
    // The field of a structured answer a chat's memory keeps (agent.memory.output_key); empty: the whole answer.
    std::string chat_output;
    // What the build could not check (an MCP tool's schema in a dialect the engine does not validate), for the
    // front ends to show once.
    std::vector<std::string> warnings;
    std::optional<Durability> durability;  // the file's `durability:`, if it says
    std::vector<std::filesystem::path> files;  // what it was built from (spec::WorkflowSpec::files)
  };
  explicit Executor(Parts parts);

  // Applies defaults and checks the given inputs against the declared ones; throws Error "input.*". The given
  // values are moved, not copied: pass an rvalue when an input may be large.
  Value resolve_inputs(Value given) const;

  agent::RunResult run(const Value& resolved_inputs, EventSink& events, const agent::RunOptions& options = {}) const;
  std::string render_first_prompt(const Value& resolved_inputs) const;
  // The agent's parser on a model's text; throws Error "usage" for an agent that reads tool calls, not text.
  parse::ParsedOutput parse_output(std::string_view text, const parse::ParserLog& log = nullptr) const;

  const std::string& name() const { return parts_.name; }
  const std::string& description() const { return parts_.description; }
  const std::vector<OutputTemplate>& outputs() const { return parts_.outputs; }
  const std::vector<Input>& inputs() const { return parts_.inputs; }
  const tools::ToolRegistry& tools() const { return parts_.tools; }
  // The input that holds the human's message in a chat (engine chat, sessions); empty when the workflow has several
  // inputs and agent.memory.input_key names none.
  const std::string& chat_input() const { return parts_.chat_input; }
  const std::string& chat_output() const { return parts_.chat_output; }
  // The secrets of the workflow and of every workflow it reaches (core/secret_set.h): what the edges its runs'
  // outputs leave by mask.
  const std::shared_ptr<const SecretSet>& secrets() const { return parts_.secrets; }
  const std::vector<std::string>& warnings() const { return parts_.warnings; }
  const std::optional<Durability>& durability() const { return parts_.durability; }
  const std::vector<std::filesystem::path>& files() const { return parts_.files; }
  // A new run's id, as run() makes one when none is given: a journaled run needs its id before it starts.
  std::string new_run_id() const;

 private:
  agent::RunResult run_steps(const Value& inputs, EventSink& events, const agent::RunOptions& options) const;
  const std::string& answer_step() const;
  const agent::Agent& the_agent(const char* command) const;  // throws "usage" for a workflow of steps

  void render_agent_outputs(const Value& inputs, agent::RunResult& r) const;

  Parts parts_;
  // Run ids: a random seed per executor, mixed with a count of its runs. Asking the system for randomness on every
  // run cost a chat turn four times its own time.
  uint64_t run_id_seed_;
  mutable std::atomic<uint64_t> runs_{0};
  // The threads its runs' parallel steps run on, kept between runs; it guards itself.
  std::unique_ptr<WorkerPool> workers_ = std::make_unique<WorkerPool>();
};

}  // namespace engine::workflow
