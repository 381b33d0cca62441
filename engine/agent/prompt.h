#pragma once
// What the agent sends each iteration: one text prompt, or chat messages, which a model's own chat template may
// turn into one text prompt (as the model's tokenizer would).
#include <optional>
#include <string>
#include <vector>

#include "engine/llm/llm_client.h"
#include "engine/template/template.h"

namespace engine::agent {

struct PromptMessage {
  std::string role;  // system, user or assistant
  tmpl::Template content;
};

struct AgentTool;

// What a prompt template sees besides the run's inputs: `inputs`, `tools` [{name, description}], `tool_names`
// ("a, b"), `tool_descriptions` (LangChain's render_text_description) and `intermediate_steps`. Built once per agent.
class PromptContext {
 public:
  explicit PromptContext(const std::vector<AgentTool>& tools);
  Value initial(const Value& inputs) const;

 private:
  Value tools_ = Value::array();
  std::string tool_names_;
  std::string tool_descriptions_;
};

class Prompt {
 public:
  static Prompt text(tmpl::Template t) { return Prompt(std::move(t)); }
  // `chat_template` (optional) renders the messages into text with `chat_extra` (bos_token, eos_token, ...).
  static Prompt chat(std::vector<PromptMessage> messages, std::optional<tmpl::Template> chat_template,
                     Value chat_extra);

  // Fills the request's prompt (text, or messages through the chat template) or its messages.
  void render(const Value& ctx, llm::LlmRequest& request) const;
  // What `engine render` shows: the text prompt, or each message under its role.
  std::string preview(const Value& ctx) const;

  // Every template the prompt renders, for build-time checks.
  std::vector<const tmpl::Template*> templates() const;

 private:
  explicit Prompt(std::optional<tmpl::Template> text) : text_(std::move(text)) {}
  Value render_messages(const Value& ctx) const;

  std::optional<tmpl::Template> text_;
  std::vector<PromptMessage> messages_;
  std::optional<tmpl::Template> chat_template_;
  Value chat_extra_ = Value::object();
};

}  // namespace engine::agent
