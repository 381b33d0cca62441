#include "engine/assemble/build_memory.h"

#include <algorithm>

#include "engine/assemble/spec_errors.h"
#include "engine/core/text.h"

namespace engine::assemble {
namespace {

std::vector<std::string> declared_inputs(const spec::WorkflowSpec& s) {
  std::vector<std::string> names;
  for (const auto& i : s.inputs) names.push_back(i.name);
  return names;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Each placeholder stands for `history`, an input that holds a list of messages, or (a ReAct agent's prompt
// rendered by a chat template) `agent_scratchpad`, the steps as tool calls and tool results.
void check_placeholders(const spec::WorkflowSpec& s) {
  std::vector<std::string> known = declared_inputs(s);
  known.insert(known.begin(), "history");
  bool steps_as_messages = s.agent.kind.value == "react" && s.llm.chat_template.given && !s.agent.scratchpad.given;
  for (const auto& m : s.agent.messages) {
    const auto& p = m.placeholder;
    if (p.value.empty() || contains(known, p.value)) continue;
    if (p.value == "agent_scratchpad") {
      if (steps_as_messages) continue;
      throw Error(ErrorKind::SpecConflict,
                  "{placeholder: agent_scratchpad} gives a ReAct agent's steps as tool calls and tool results, which "
                  "only a chat template (llm.chat_template) can render" +
                      std::string(s.agent.scratchpad.given ? ", and not with agent.scratchpad" : ""),
                  p.loc, quoted_line(s, p.loc));
    }
    throw Error(ErrorKind::SpecUndeclaredVariable,
                "the placeholder '" + p.value + "' names neither history nor a declared input" +
                    did_you_mean(p.value, known),
                p.loc, quoted_line(s, p.loc));
  }
}

}  // namespace

agent::Memory build_memory(const spec::WorkflowSpec& s, const agent::Prompt& prompt,
                           const std::vector<PromptPart>& parts) {
  check_placeholders(s);
  const spec::MemorySpec& m = s.agent.memory;
  std::string reads_history;  // the first name of the history the prompt reads, and where
  SourceLoc read_at;
  bool reads_messages = false, reads_text = false;
  for (const auto& part : parts)
    for (const auto& name : part.tmpl->free_names()) {
      if (name != "history" && name != "history_text") continue;
      (name == "history" ? reads_messages : reads_text) = true;
      if (reads_history.empty()) {
        reads_history = name;
        read_at = part.loc;
      }
    }
  auto placeholders = prompt.placeholders();
  bool has_placeholder = contains(placeholders, "history");

  agent::Memory memory;
  if (m.kind.value == "none") {
    if (!reads_history.empty())
      throw Error(ErrorKind::SpecMissingKey,
                  "the prompt reads '" + reads_history + "', but the agent has no memory, so it would always be "
                  "empty; add agent.memory (for instance {kind: window, k: 5})",
                  read_at, quoted_line(s, read_at));
    return memory;
  }
  if (reads_history.empty() && !has_placeholder)
    throw Error(ErrorKind::SpecUnused, s.agent.path + ".memory is set, but the prompt reads neither history nor history_text, "
                               "and has no {placeholder: history}: the model would never see the conversation",
                m.loc, quoted_line(s, m.loc));
  memory.kind = m.kind.value == "full"     ? agent::Memory::Kind::Full
                : m.kind.value == "window" ? agent::Memory::Kind::Window
                                           : agent::Memory::Kind::TokenLimit;
  memory.k = m.k;
  memory.max_tokens = m.max_tokens;
  memory.human_prefix = m.human_prefix;
  memory.ai_prefix = m.ai_prefix;
  memory.messages_read = reads_messages || has_placeholder;
  memory.text_read = reads_text;
  return memory;
}

std::string chat_input(const spec::WorkflowSpec& s) {
  const spec::MemorySpec& m = s.agent.memory;
  std::vector<std::string> inputs = declared_inputs(s);
  if (!m.input_key.value.empty()) {
    if (!contains(inputs, m.input_key.value))
      throw Error(ErrorKind::SpecUndeclaredVariable,
                  s.agent.path + ".memory.input_key '" + m.input_key.value + "' is not a declared input" +
                      (did_you_mean(m.input_key.value, inputs).empty()
                           ? " (declared inputs: " + (inputs.empty() ? std::string("none") : join(inputs, ", ")) + ")"
                           : did_you_mean(m.input_key.value, inputs)),
                  m.input_key.loc, quoted_line(s, m.input_key.loc));
    return m.input_key.value;
  }
  if (contains(inputs, "input")) return "input";
  if (inputs.size() == 1) return inputs[0];
  if (m.kind.value != "none")
    throw Error(ErrorKind::SpecMissingKey,
                s.agent.path + ".memory needs input_key: which input holds the human's message (declared inputs: " +
                    (inputs.empty() ? std::string("none") : join(inputs, ", ")) + ")",
                m.loc, quoted_line(s, m.loc));
  return "";
}

}  // namespace engine::assemble
