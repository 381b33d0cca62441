#include "engine/agent/prompt.h"

#include "engine/agent/tool_set.h"

#include "engine/agent/run_core.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::agent {

RunVars PromptContext::initial(const Value& inputs, std::span<const Exchange> history, const ToolSet& tools) const {
  RunVars run{Value::object(), &inputs};
  Value& ctx = run.own;
  if (memory_.kind != Memory::Kind::None) {
    auto remembered = memory_.remembered(history);
    if (memory_.messages_read) ctx["history"] = Memory::messages(remembered);
    if (memory_.text_read) ctx["history_text"] = memory_.buffer_text(remembered);
  }
  ctx["tools"] = tools.described;
  ctx["tool_names"] = tools.names;
  ctx["tool_descriptions"] = tools.descriptions;
  ctx["intermediate_steps"] = Value::array();
  return run;
}

Prompt Prompt::chat(std::vector<PromptMessage> messages, std::optional<tmpl::Template> chat_template,
                    Value chat_extra, bool add_generation_prompt) {
  Prompt p(std::nullopt);
  p.messages_ = std::move(messages);
  p.chat_template_ = std::move(chat_template);
  p.chat_extra_ = chat_extra.is_object() ? std::move(chat_extra) : Value::object();
  p.add_generation_prompt_ = add_generation_prompt;
  return p;
}

namespace {

// A message for a chat template, which reads what transformers passes: any role (tool results included), content
// as text, as a list of parts or none, and the keys beside it (tool_calls, tool_call_id, name, reasoning_content).
void check_template_message(const Value& m, const std::string& at) {
  if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || m["role"].get_ref<const std::string&>().empty())
    throw Error(ErrorKind::PromptPlaceholder, at + " must be a message with a role");
  if (auto c = m.find("content"); c != m.end() && !c->is_string() && !c->is_null() && !c->is_array())
    throw Error(ErrorKind::PromptPlaceholder, at + ".content must be text, a list of parts or null, got " + std::string(c->type_name()));
  if (auto c = m.find("content"); c != m.end() && c->is_array())
    for (size_t i = 0; i < c->size(); ++i)
      if (!(*c)[i].is_object()) throw Error(ErrorKind::PromptPlaceholder, at + ".content[" + std::to_string(i) + "] must be a part, {type, ...}");
  if (auto calls = m.find("tool_calls"); calls != m.end() && !calls->is_array() && !calls->is_null())
    throw Error(ErrorKind::PromptPlaceholder, at + ".tool_calls must be a list of calls");
}

// The messages a placeholder stands for, checked: the variable may be an input, which is anyone's data. Sent to a
// chat API they must be {role, content} text; a chat template takes them as transformers would.
void append_placeholder(const std::string& variable, const tmpl::Vars& ctx, bool for_template, Value& out) {
  const Value* it = ctx.find(variable);
  if (!it || it->is_null()) return;  // an absent list is no messages, as an optional placeholder
  if (!it->is_array())
    throw Error(ErrorKind::PromptPlaceholder, "the placeholder '" + variable + "' needs a list of {role, content} messages, got " +
                                          std::string(it->type_name()));
  for (size_t i = 0; i < it->size(); ++i) {
    const Value& m = (*it)[i];
    std::string at = variable + "[" + std::to_string(i) + "]";
    if (for_template) {
      check_template_message(m, at);
      out.push_back(m);
      continue;
    }
    if (!m.is_object() || !m.contains("role") || !m.contains("content") || !m["content"].is_string())
      throw Error(ErrorKind::PromptPlaceholder, at + " must be {role, content} with text content");
    const Value& role = m["role"];
    if (role != "system" && role != "user" && role != "assistant")
      throw Error(ErrorKind::PromptPlaceholder, at + ".role must be system, user or assistant, got " + role.dump());
    out.push_back(Value{{"role", role}, {"content", m["content"]}});
  }
}

}  // namespace

Value Prompt::render_messages(const tmpl::Vars& ctx) const {
  Value out = Value::array();
  for (const auto& m : messages_) {
    if (m.content) out.push_back(Value{{"role", m.role}, {"content", m.content->render(ctx)}});
    else append_placeholder(m.placeholder, ctx, chat_template_.has_value(), out);
  }
  return out;
}

void Prompt::render(const tmpl::Vars& ctx, llm::LlmRequest& request) const {
  if (text_) {
    request.prompt = text_->render(ctx);
    return;
  }
  Value messages = render_messages(ctx);
  if (chat_template_) {
    request.prompt = chat_template_->render_chat(messages, add_generation_prompt_, chat_extra_);
    return;
  }
  request.messages.clear();
  for (auto& m : messages)
    request.messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
}

std::string Prompt::preview(const tmpl::Vars& ctx) const {
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
  for (const auto& m : messages_)
    if (m.content) out.push_back(&*m.content);
  return out;
}

std::vector<std::string> Prompt::placeholders() const {
  std::vector<std::string> out;
  for (const auto& m : messages_)
    if (!m.content) out.push_back(m.placeholder);
  return out;
}

}  // namespace engine::agent
