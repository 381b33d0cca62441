#pragma once
// A workflow ready to run: built once from its Spec (templates and regexes compiled, tools loaded, provider
// chosen), then immutable, so batch runs and chat sessions can share it across threads.
#include <memory>
#include <string>
#include <vector>

#include "engine/agent/agent.h"
#include "engine/assemble/build_llm.h"
#include "engine/core/redact.h"
#include "engine/spec/workflow_spec.h"
#include "engine/template/template.h"
#include "engine/tools/tool_registry.h"

namespace engine::assemble {

struct OutputTemplate {
  std::string name;
  tmpl::Template value;
};

class Executor {
 public:
  // Every static check happens here, before any LLM call. Throws a located Error for anything wrong.
  static std::shared_ptr<const Executor> build(const spec::WorkflowSpec& spec, const BuildOptions& options = {});

  // Applies defaults and checks the given inputs against the declared ones; throws Error "input.*". The given
  // values are moved, not copied: pass an rvalue when an input may be large.
  Value resolve_inputs(Value given) const;

  agent::RunResult run(const Value& resolved_inputs, EventSink& events, const agent::RunOptions& options = {}) const;
  std::string render_first_prompt(const Value& resolved_inputs) const;
  // The agent's parser on a model's text; throws Error "usage" for an agent that reads tool calls, not text.
  parse::ParsedOutput parse_output(std::string_view text) const;

  const std::string& name() const { return name_; }
  const std::vector<spec::InputSpec>& inputs() const { return inputs_; }
  const tools::ToolRegistry& tools() const { return tools_; }
  // The input that holds the human's message in a chat (engine chat, sessions); empty when the workflow has several
  // inputs and agent.memory.input_key names none.
  const std::string& chat_input() const { return chat_input_; }
  // Masks the keys the workflow's provider reads (core/redact.h): front ends put it before every output.
  const Redactor& redactor() const { return redactor_; }

  Executor(std::string name, std::vector<spec::InputSpec> inputs, tools::ToolRegistry tools,
           std::unique_ptr<agent::Agent> agent, std::vector<OutputTemplate> outputs)
      : name_(std::move(name)),
        inputs_(std::move(inputs)),
        tools_(std::move(tools)),
        agent_(std::move(agent)),
        outputs_(std::move(outputs)) {}

 private:
  std::string name_;
  std::vector<spec::InputSpec> inputs_;
  tools::ToolRegistry tools_;
  std::unique_ptr<agent::Agent> agent_;
  std::vector<OutputTemplate> outputs_;
  Redactor redactor_;
  std::string chat_input_;
};

}  // namespace engine::assemble
