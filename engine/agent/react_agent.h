#pragma once
// LangChain's AgentExecutor for a ReAct agent: render prompt -> LLM (stop sequences) -> parse -> tool -> observation,
// until a final answer or a limit.
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/agent.h"
#include "engine/agent/prompt.h"
#include "engine/agent/structured_answer.h"
#include "engine/agent/tool_set.h"
#include "engine/llm/llm_client.h"
#include "engine/parse/output_parser.h"
#include "engine/template/template.h"

namespace engine::agent {

enum class ParseErrorPolicy { Fail, Retry };

struct ReactAgentConfig {
  Prompt prompt;
  // A workflow's own scratchpad template, rendered from every step before each call. Without one, LangChain's
  // format_log_to_str is written a step at a time (the step's log, the observation prefix and text, the llm prefix
  // of `limits`) and appended: no step is formatted twice, however long the run.
  std::optional<tmpl::Template> scratchpad;
  // The prompt has {placeholder: agent_scratchpad}: the steps are messages for the chat template, each an assistant
  // tool call and its tool result, as transformers' templates take them (LangChain's format_to_tool_messages).
  bool scratchpad_messages = false;
  std::vector<std::string> stop;
  std::vector<AgentTool> tools;  // the tools this agent may call, in declaration order, as the build found them
  std::vector<AgentTools::Changing> changing_tools;  // the sources some of them came from, whose lists can change
  RunLimits limits;
  ParseErrorPolicy on_parse_error = ParseErrorPolicy::Fail;
  std::optional<OutputSchema> output;  // the final answer is JSON matching it
  Memory memory;  // what the prompt sees of the session's past exchanges
};

class ReactAgent : public Agent {
 public:
  ReactAgent(ReactAgentConfig config, std::shared_ptr<const parse::OutputParser> parser,
             std::shared_ptr<const llm::LlmClient> llm);

  RunResult run(const Value& inputs, EventSink& events, const RunOptions& options = {}) const override;
  std::string render_first_prompt(const Value& inputs) const override;
  const parse::OutputParser* text_parser() const override { return parser_.get(); }

  const ReactAgentConfig& config() const { return config_; }
  const parse::OutputParser& parser() const { return *parser_; }
  // The context the prompt template sees before the first step: the inputs, tools, tool_names, ...
  RunVars initial_context(const Value& inputs, std::span<const Exchange> history, const ToolSet& tools) const;
  // The tools of a run starting now.
  std::shared_ptr<const ToolSet> tools(const Cancel* cancel) const { return tools_.current(cancel); }

 private:
  ReactAgentConfig config_;
  std::shared_ptr<const parse::OutputParser> parser_;
  std::shared_ptr<const llm::LlmClient> llm_;
  PromptContext context_;
  AgentTools tools_;
};

// LangChain's format_log_to_str for one step, appended to `scratchpad`.
// The same step as two messages for a chat template: the assistant's tool call (arguments as an object; a text
// input as {input}) and the tool's result, joined by a call id; a text that was no step is the model's words and a
// user message saying what was wrong.
void append_step_messages(Value& messages, const parse::AgentAction& action, const std::string& observation);
void append_step(std::string& scratchpad, const std::string& log, const std::string& observation,
                 const RunLimits& limits);

}  // namespace engine::agent
