#pragma once
// What the agent sends each iteration: one text prompt, or chat messages, which a model's own chat template may
// turn into one text prompt (as the model's tokenizer would).
#include <optional>
#include <string>
#include <vector>

#include "engine/agent/memory.h"
#include "engine/llm/llm_client.h"
#include "engine/template/template.h"

namespace engine::agent {

// One message of a chat prompt: a role and its template, or a placeholder (LangChain's MessagesPlaceholder) that
// stands for a list of {role, content} messages in the context, such as `history`.
struct PromptMessage {
  std::string role;  // system, user or assistant
  std::optional<tmpl::Template> content;
  std::string placeholder;  // the context variable, when this is a placeholder

  static PromptMessage of(std::string role, tmpl::Template content) { return {std::move(role), std::move(content), ""}; }
  static PromptMessage placeholder_for(std::string variable) { return {"", std::nullopt, std::move(variable)}; }
};

struct ToolSet;

// What an agent's templates read during a run: the run's own variables (tools, history, scratchpad, steps) over its
// inputs, which stay where the caller holds them and are read by name and as `inputs`, never copied.
struct RunVars {
  Value own = Value::object();
  const Value* inputs = nullptr;

  tmpl::Vars vars() const { return tmpl::Vars::of(own).then_named("inputs", *inputs).then(*inputs); }
};

// What a prompt template sees besides the run's inputs: `inputs`, `tools` [{name, description}], `tool_names`
// ("a, b"), `tool_descriptions` (LangChain's render_text_description), `intermediate_steps`, and the session's
// `history` (messages) and `history_text` as the memory remembers them. Built once per agent.
class PromptContext {
 public:
  explicit PromptContext(Memory memory) : memory_(std::move(memory)) {}
  // `history` is the session's exchanges so far; the memory picks what the prompt sees; `tools` the run's tools.
  // `inputs` must outlive the result, which borrows them.
  RunVars initial(const Value& inputs, std::span<const Exchange> history, const ToolSet& tools) const;
  const Memory& memory() const { return memory_; }

 private:
  Memory memory_;
};

class Prompt {
 public:
  static Prompt text(tmpl::Template t) { return Prompt(std::move(t)); }
  // `chat_template` (optional) renders the messages into text with `chat_extra` (bos_token, eos_token, tools, the
  // template's own variables) and `add_generation_prompt`, as transformers' apply_chat_template.
  static Prompt chat(std::vector<PromptMessage> messages, std::optional<tmpl::Template> chat_template,
                     Value chat_extra, bool add_generation_prompt = true);

  // Fills the request's prompt (text, or messages through the chat template) or its messages.
  void render(const tmpl::Vars& ctx, llm::LlmRequest& request) const;
  // What `engine render` shows: the text prompt, or each message under its role.
  std::string preview(const tmpl::Vars& ctx) const;

  // Every template the prompt renders, for build-time checks.
  std::vector<const tmpl::Template*> templates() const;
  // The context variables the prompt's placeholders stand for.
  std::vector<std::string> placeholders() const;

 private:
  explicit Prompt(std::optional<tmpl::Template> text) : text_(std::move(text)) {}
  Value render_messages(const tmpl::Vars& ctx) const;

  std::optional<tmpl::Template> text_;
  std::vector<PromptMessage> messages_;
  std::optional<tmpl::Template> chat_template_;
  Value chat_extra_ = Value::object();
  bool add_generation_prompt_ = true;
};

}  // namespace engine::agent
