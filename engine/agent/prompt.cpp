#include "engine/agent/prompt.h"

#include "engine/agent/run_core.h"
#include "engine/core/text.h"

namespace engine::agent {

PromptContext::PromptContext(const std::vector<AgentTool>& tools) {
  std::vector<std::string> names, lines;
  for (const auto& t : tools) {
    tools_.push_back(Value{{"name", t.tool->name()}, {"description", t.tool->description()}});
    names.push_back(t.tool->name());
    lines.push_back(t.tool->name() + ": " + t.tool->description());
  }
  tool_names_ = join(names, ", ");
  tool_descriptions_ = join(lines, "\n");
}

Value PromptContext::initial(const Value& inputs) const {
  Value ctx = inputs.is_object() ? inputs : Value::object();
  ctx["inputs"] = inputs;
  ctx["tools"] = tools_;
  ctx["tool_names"] = tool_names_;
  ctx["tool_descriptions"] = tool_descriptions_;
  ctx["intermediate_steps"] = Value::array();
  return ctx;
}

Prompt Prompt::chat(std::vector<PromptMessage> messages, std::optional<tmpl::Template> chat_template,
                    Value chat_extra) {
  Prompt p(std::nullopt);
  p.messages_ = std::move(messages);
  p.chat_template_ = std::move(chat_template);
  p.chat_extra_ = chat_extra.is_object() ? std::move(chat_extra) : Value::object();
  return p;
}

Value Prompt::render_messages(const Value& ctx) const {
  Value out = Value::array();
  for (const auto& m : messages_) out.push_back(Value{{"role", m.role}, {"content", m.content.render(ctx)}});
  return out;
}

void Prompt::render(const Value& ctx, llm::LlmRequest& request) const {
  if (text_) {
    request.prompt = text_->render(ctx);
    return;
  }
  Value messages = render_messages(ctx);
  if (chat_template_) {
    request.prompt = chat_template_->render_chat(messages, true, chat_extra_);
    return;
  }
  request.messages.clear();
  for (auto& m : messages)
    request.messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
}

std::string Prompt::preview(const Value& ctx) const {
  llm::LlmRequest r;
  render(ctx, r);
  if (r.messages.empty()) return r.prompt;
  std::string out;
  for (const auto& m : r.messages) out += "[" + m.role + "]\n" + m.content + "\n\n";
  return out;
}

std::vector<const tmpl::Template*> Prompt::templates() const {
  std::vector<const tmpl::Template*> out;
  if (text_) out.push_back(&*text_);
  for (const auto& m : messages_) out.push_back(&m.content);
  return out;
}

}  // namespace engine::agent
