#include "engine/assemble/build_agent.h"

#include <algorithm>

#include "engine/assemble/build_llm.h"
#include "engine/assemble/build_memory.h"
#include "engine/assemble/build_parser.h"
#include "engine/assemble/build_tools.h"
#include "engine/agent/react_agent.h"
#include "engine/agent/tool_calling_agent.h"
#include "engine/assemble/spec_errors.h"
#include "engine/assemble/template_checks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/parse/schema_patterns.h"

namespace engine::assemble {
namespace {

// What the agent puts in every prompt context besides the inputs.
const std::vector<std::string> kAgentContext = {"inputs", "tools", "tool_names", "tool_descriptions",
                                                "intermediate_steps", "agent_scratchpad", "history", "history_text"};
const std::vector<std::string> kToolCallingContext = {"inputs", "tools", "tool_names", "tool_descriptions",
                                                       "intermediate_steps", "history", "history_text"};

// The tools a chat template lists (llm.chat_template_tools), as transformers is given them: OpenAI's function
// schemas; none when the workflow names none.
Value chat_template_tools(const spec::WorkflowSpec& s, const std::vector<agent::AgentTool>& tools) {
  const spec::LlmSpec& l = s.llm;
  if (!l.chat_template_all_tools && l.chat_template_tools.empty()) return nullptr;
  if (!l.chat_template.given)
    throw Error(ErrorKind::SpecConflict, "llm.chat_template_tools lists tools for a chat template, but llm.chat_template is not given",
                l.chat_template_tools_loc, quoted_line(s, l.chat_template_tools_loc));
  std::vector<std::string> names;
  for (const auto& t : tools) names.push_back(t.tool->name());
  Value out = Value::array();
  auto add = [&](const tools::Tool& tool) {
    llm::ToolSchema schema = agent::schema_of(tool);
    out.push_back(Value{{"type", "function"},
                        {"function", {{"name", schema.name}, {"description", schema.description},
                                      {"parameters", std::move(schema.parameters)}}}});
  };
  if (l.chat_template_all_tools)
    for (const auto& t : tools) add(*t.tool);
  for (const auto& wanted : l.chat_template_tools) {
    auto it = std::find_if(tools.begin(), tools.end(), [&](const agent::AgentTool& t) { return t.tool->name() == wanted.value; });
    if (it == tools.end())
      throw Error(ErrorKind::SpecUnknownTool, "unknown tool '" + wanted.value + "' in llm.chat_template_tools: not one of the agent's tools" +
                                           did_you_mean(wanted.value, names),
                  wanted.loc, quoted_line(s, wanted.loc));
    add(*it->tool);
  }
  return out;
}

// The prompt: one template, or messages, which the model's chat template (when given) renders into text.
agent::Prompt build_prompt(const spec::WorkflowSpec& s, const std::vector<agent::AgentTool>& tools) {
  const spec::AgentSpec& a = s.agent;
  if (s.llm.chat_template.given && a.messages.empty())
    throw Error(ErrorKind::SpecConflict,
                "llm.chat_template renders a list of messages, but " + a.path + ".prompt is a single template; give " +
                    a.path + ".prompt as a list of {role, content} or drop the chat template",
                s.llm.chat_template.loc, quoted_line(s, s.llm.chat_template.loc));
  if (a.messages.empty()) return agent::Prompt::text(compile_template(a.prompt, a.template_flags, s));
  std::vector<agent::PromptMessage> messages;
  for (const auto& m : a.messages)
    messages.push_back(m.placeholder.value.empty()
                           ? agent::PromptMessage::of(m.role.value, compile_template(m.content, a.template_flags, s))
                           : agent::PromptMessage::placeholder_for(m.placeholder.value));
  std::optional<tmpl::Template> chat;
  if (s.llm.chat_template.given) chat = tmpl::Template::compile_chat(s.llm.chat_template.text, s.llm.chat_template.origin);
  Value extra = s.llm.chat_template_kwargs;
  extra["bos_token"] = s.llm.bos_token;
  extra["eos_token"] = s.llm.eos_token;
  if (Value listed = chat_template_tools(s, tools); !listed.is_null()) extra["tools"] = std::move(listed);
  return agent::Prompt::chat(std::move(messages), std::move(chat), std::move(extra), s.llm.add_generation_prompt);
}

std::string priced_models(const spec::LlmSpec& l) {
  std::vector<std::string> names;
  for (const auto& [model, price] : l.prices) names.push_back(model);
  return join(names, ", ");
}

// Every prompt template may read only the declared inputs and what the agent provides.
void check_prompt_names(const agent::Prompt& prompt, const std::vector<std::string>& provided,
                        const spec::WorkflowSpec& s) {
  const spec::AgentSpec& a = s.agent;
  std::vector<std::string> inputs = input_names(s);
  if (a.messages.empty()) {
    check_free_names(*prompt.templates()[0], inputs, provided, a.path + ".prompt", a.prompt.loc, s, &a.prompt);
    return;
  }
  size_t t = 0;  // the prompt's templates are its messages' contents, placeholders skipped
  for (size_t i = 0; i < a.messages.size(); ++i)
    if (a.messages[i].placeholder.value.empty())
      check_free_names(*prompt.templates()[t++], inputs, provided, a.path + ".prompt[" + std::to_string(i) + "].content",
                       a.messages[i].content.loc, s, &a.messages[i].content);
}

// Where each of the prompt's templates was written, the scratchpad's (when there is one) last.
std::vector<PromptPart> prompt_parts(const agent::Prompt& prompt, const tmpl::Template* scratchpad,
                                     const spec::WorkflowSpec& s) {
  const spec::AgentSpec& a = s.agent;
  std::vector<PromptPart> parts;
  auto templates = prompt.templates();
  if (a.messages.empty()) parts.push_back({templates[0], a.prompt.loc});
  size_t t = 0;
  for (const auto& m : a.messages)
    if (m.placeholder.value.empty()) parts.push_back({templates[t++], m.content.loc});
  if (scratchpad) parts.push_back({scratchpad, a.scratchpad.loc});
  return parts;
}

agent::RunLimits run_limits(const spec::WorkflowSpec& s) {
  const spec::AgentSpec& a = s.agent;
  agent::RunLimits limits;
  limits.max_iterations = a.max_iterations;
  if (a.max_execution_time)
    limits.max_execution_time = std::chrono::milliseconds(static_cast<long long>(*a.max_execution_time * 1000));
  limits.early_stopping = a.early_stopping.value == "generate" ? agent::EarlyStopping::Generate : agent::EarlyStopping::Force;
  limits.observation_prefix = a.observation_prefix;
  limits.llm_prefix = a.llm_prefix;
  limits.temperature = a.temperature ? a.temperature : s.llm.temperature;
  limits.max_tokens = a.max_tokens ? a.max_tokens : s.llm.max_tokens;
  limits.max_tokens_total = a.max_tokens_total;
  limits.max_cost = a.max_cost;
  if (auto price = model_price(s.llm)) limits.price = llm::Price{price->prompt, price->completion};
  if (a.max_cost && !limits.price)
    throw Error(ErrorKind::SpecMissingKey,
                a.path + ".max_cost needs the price of model '" + s.llm.model + "' in llm.prices" +
                    (s.llm.prices.empty() ? "" : " (priced: " + priced_models(s.llm) + ")"),
                a.max_cost_loc, quoted_line(s, a.max_cost_loc));
  return limits;
}

// agent.output_schema, compiled with the engine's regexes; a tool-calling agent ends through its final_answer tool,
// which no tool of the workflow may be named.
std::optional<agent::OutputSchema> output_schema(const spec::WorkflowSpec& s, const std::vector<agent::AgentTool>& tools) {
  const spec::AgentSpec& a = s.agent;
  const Value& format = s.llm.response_format;
  if (a.output_schema.is_null() && format.is_object() && format.value("type", "") == "json_schema") {
    // The provider is asked for JSON in this schema; what it sends is checked all the same.
    try {
      return agent::OutputSchema{schema::Schema::compile(format["json_schema"]["schema"], {parse::schema_patterns()}),
                                 "", false};
    } catch (const Error& e) {
      throw Error(e.kind(), "llm.response_format: " + e.message(), s.llm.response_format_loc,
                  quoted_line(s, s.llm.response_format_loc));
    }
  }
  if (a.output_schema.is_null()) return std::nullopt;
  std::optional<agent::OutputSchema> out;
  try {
    out = agent::OutputSchema{schema::Schema::compile(a.output_schema, {parse::schema_patterns()})};
  } catch (const Error& e) {
    throw Error(e.kind(), a.path + ".output_schema: " + e.message(), a.output_schema_loc, quoted_line(s, a.output_schema_loc));
  }
  for (const auto& t : tools)
    if (t.tool->name() == out->tool_name)
      throw Error(ErrorKind::SpecConflict, "a tool is named '" + out->tool_name + "', the name of the tool through which an "
                  "agent with an output_schema gives its answer; rename the tool", a.output_schema_loc,
                  quoted_line(s, a.output_schema_loc));
  return out;
}

std::unique_ptr<agent::Agent> build_react_agent(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry,
                                                std::shared_ptr<const llm::LlmClient> llm,
                                                const std::shared_ptr<net::IoThreads>& io) {
  const spec::AgentSpec& a = s.agent;
  std::vector<agent::AgentTool> tools = agent_tools(s, registry);
  agent::ReactAgentConfig cfg{.prompt = build_prompt(s, tools)};
  check_prompt_names(cfg.prompt, kAgentContext, s);
  // The workflow's own scratchpad is rendered whole; the built-in one is written a step at a time by the agent.
  if (a.scratchpad.given) {
    cfg.scratchpad = compile_template(a.scratchpad, a.template_flags, s);
    check_free_names(*cfg.scratchpad, input_names(s), kAgentContext, a.path + ".scratchpad", a.scratchpad.loc, s);
  }
  const auto placeholders = cfg.prompt.placeholders();
  cfg.scratchpad_messages = std::find(placeholders.begin(), placeholders.end(), "agent_scratchpad") != placeholders.end();
  cfg.stop = a.stop;
  cfg.tools = std::move(tools);
  cfg.changing_tools = changing_tools(s, registry);
  cfg.limits = run_limits(s);
  cfg.output = output_schema(s, cfg.tools);
  cfg.on_parse_error = a.on_parse_error.value == "retry" ? agent::ParseErrorPolicy::Retry : agent::ParseErrorPolicy::Fail;
  cfg.memory = build_memory(s, cfg.prompt, prompt_parts(cfg.prompt, cfg.scratchpad ? &*cfg.scratchpad : nullptr, s));
  if (s.llm.endpoint.value == "completions" && !a.messages.empty() && !s.llm.chat_template.given)
    throw Error(ErrorKind::SpecConflict,
                "llm.endpoint completions takes a text prompt, and agent.prompt is a list of messages; give "
                "llm.chat_template to render them, or use endpoint: chat",
                s.llm.endpoint.loc, quoted_line(s, s.llm.endpoint.loc));

  auto parser = build_parser(s, cfg.tools, io);
  return std::make_unique<agent::ReactAgent>(std::move(cfg), std::move(parser), std::move(llm));
}

// llm.tool_choice, checked against the agent's tools: it is part of every request (and of a recording's key).
std::string tool_choice(const spec::WorkflowSpec& s, const std::vector<agent::AgentTool>& tools) {
  const auto& choice = s.llm.tool_choice;
  std::vector<std::string> allowed = {"auto", "none", "required", "any"};
  for (const auto& t : tools) allowed.push_back(t.tool->name());
  if (!s.agent.output_schema.is_null()) allowed.push_back("final_answer");
  if (!choice.value.empty() && std::find(allowed.begin(), allowed.end(), choice.value) == allowed.end())
    throw Error(ErrorKind::SpecBadValue,
                "llm.tool_choice '" + choice.value + "' is neither auto, none, required, any nor one of the agent's tools" +
                    did_you_mean(choice.value, allowed),
                choice.loc, quoted_line(s, choice.loc));
  return choice.value;
}

// Tool calls need a chat API: the model's own chat template and the text completions endpoint have no place for
// them.
std::unique_ptr<agent::Agent> build_tool_calling_agent(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry,
                                                       std::shared_ptr<const llm::LlmClient> llm) {
  const spec::AgentSpec& a = s.agent;
  if (s.llm.chat_template.given)
    throw Error(ErrorKind::SpecConflict,
                "a tool_calling agent sends its tools and messages to a chat API; llm.chat_template would turn them "
                "into text (use a react agent with a chat template)",
                s.llm.chat_template.loc, quoted_line(s, s.llm.chat_template.loc));
  if (s.llm.endpoint.value == "completions")
    throw Error(ErrorKind::SpecConflict, "a tool_calling agent needs endpoint: chat; the completions endpoint takes no tools",
                s.llm.endpoint.loc, quoted_line(s, s.llm.endpoint.loc));
  std::vector<agent::AgentTool> tools = agent_tools(s, registry);
  agent::ToolCallingAgentConfig cfg{.prompt = build_prompt(s, tools)};
  check_prompt_names(cfg.prompt, kToolCallingContext, s);
  cfg.stop = a.stop;
  cfg.tools = std::move(tools);
  cfg.changing_tools = changing_tools(s, registry);
  cfg.tool_choice = tool_choice(s, cfg.tools);
  cfg.limits = run_limits(s);
  cfg.output = output_schema(s, cfg.tools);
  cfg.memory = build_memory(s, cfg.prompt, prompt_parts(cfg.prompt, nullptr, s));
  return std::make_unique<agent::ToolCallingAgent>(std::move(cfg), std::move(llm));
}

}  // namespace

std::unique_ptr<agent::Agent> build_agent(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry,
                                          std::shared_ptr<const llm::LlmClient> llm,
                                          const std::shared_ptr<net::IoThreads>& io) {
  return s.agent.kind.value == "tool_calling" ? build_tool_calling_agent(s, registry, std::move(llm))
                                              : build_react_agent(s, registry, std::move(llm), io);
}

}  // namespace engine::assemble
