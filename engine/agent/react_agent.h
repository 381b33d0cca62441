#pragma once
// LangChain's AgentExecutor for a ReAct agent: render prompt -> LLM (stop sequences) -> parse -> tool -> observation,
// until a final answer or a limit. Immutable once built; each run() keeps its own state, so runs may share it.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/prompt.h"
#include "engine/agent/run_result.h"
#include "engine/core/event.h"
#include "engine/llm/llm_client.h"
#include "engine/parse/react_parser.h"
#include "engine/template/template.h"
#include "engine/tools/tool_registry.h"

namespace engine::agent {

enum class EarlyStopping { Force, Generate };
enum class ParseErrorPolicy { Fail, Retry };

struct AgentTool {
  std::shared_ptr<const tools::Tool> tool;
  bool return_direct = false;
  bool fail_run_on_error = false;  // else a tool's failure is an observation and the run goes on
};

struct ReactAgentConfig {
  Prompt prompt;
  tmpl::Template scratchpad;  // renders intermediate_steps into the prompt's agent_scratchpad
  std::vector<std::string> stop;
  std::vector<AgentTool> tools;  // the tools this agent may call, in declaration order
  int max_iterations = 15;
  std::optional<std::chrono::milliseconds> max_execution_time;
  EarlyStopping early_stopping = EarlyStopping::Force;
  ParseErrorPolicy on_parse_error = ParseErrorPolicy::Fail;
  std::string observation_prefix = "Observation: ";  // for the console, as LangChain's verbose output
  std::string llm_prefix = "Thought: ";
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  // Budgets: the run stops cleanly before a call once it has used this much.
  std::optional<long> max_tokens_total;
  std::optional<double> max_cost;  // USD; needs `price`
  std::optional<llm::Price> price;  // the model's, when known: every run then reports its cost
};

struct RunOptions {
  bool stream = false;  // the model's text as it arrives, as "llm_token" events
};

class ReactAgent {
 public:
  ReactAgent(ReactAgentConfig config, parse::ReactParser parser, std::shared_ptr<const llm::LlmClient> llm);

  // `inputs` is an object of the run's inputs. Never throws for what the model or a tool does: failures are in
  // the result's `error`.
  RunResult run(const Value& inputs, EventSink& events, const RunOptions& options = {}) const;

  // The first prompt for these inputs, as `engine render` shows it.
  std::string render_first_prompt(const Value& inputs) const;
  const ReactAgentConfig& config() const { return config_; }
  const parse::ReactParser& parser() const { return parser_; }

  // The context the prompt template sees before the first step: the inputs, tools, tool_names, ...
  Value initial_context(const Value& inputs) const;

 private:
  ReactAgentConfig config_;
  parse::ReactParser parser_;
  std::shared_ptr<const llm::LlmClient> llm_;
  Value tools_value_;       // [{name, description}], built once
  std::string tool_names_;  // "a, b"
  std::string tool_descriptions_;  // "a: does x\nb: does y", LangChain's render_text_description
};

}  // namespace engine::agent
