#pragma once
// A tool-calling agent (LangChain's create_tool_calling_agent with AgentExecutor): the tools go to the model as
// function schemas, the model answers with tool calls (several at once, each answered by its id) or with the final
// answer as plain text. The conversation grows with the assistant's calls and the tools' results.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/agent.h"
#include "engine/agent/prompt.h"
#include "engine/agent/structured_answer.h"
#include "engine/agent/tool_set.h"
#include "engine/llm/llm_client.h"

namespace engine::agent {

struct ToolCallingAgentConfig {
  Prompt prompt;  // messages (a text prompt is sent as one user message)
  std::vector<std::string> stop;
  std::vector<AgentTool> tools;  // as the build found them
  std::vector<AgentTools::Changing> changing_tools;  // the sources some of them came from, whose lists can change
  std::string tool_choice;  // "" (the provider's default), auto, none, required, any, or a tool's name
  RunLimits limits;
  std::optional<OutputSchema> output;  // the run ends through a final-answer tool whose arguments match it
  Memory memory;  // what the prompt sees of the session's past exchanges
};

class ToolCallingAgent : public Agent {
 public:
  ToolCallingAgent(ToolCallingAgentConfig config, std::shared_ptr<const llm::LlmClient> llm);

  RunResult run(const Value& inputs, EventSink& events, const RunOptions& options = {}) const override;
  std::string render_first_prompt(const Value& inputs) const override;

  const ToolCallingAgentConfig& config() const { return config_; }
  // What the model is given for a run with `tools`: their schemas, and the final-answer tool's when there is one.
  std::vector<llm::ToolSchema> schemas(const ToolSet& tools) const;
  RunVars initial_context(const Value& inputs, std::span<const Exchange> history, const ToolSet& tools) const;
  std::shared_ptr<const ToolSet> tools(const Cancel* cancel) const { return tools_.current(cancel); }

 private:
  ToolCallingAgentConfig config_;
  std::shared_ptr<const llm::LlmClient> llm_;
  PromptContext context_;
  AgentTools tools_;
};

// A tool's input from a call's arguments: {"input": "..."} gives the string, any other JSON its text.
Value tool_input_of(const std::string& arguments);

}  // namespace engine::agent
