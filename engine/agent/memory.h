#pragma once
// Conversation memory, as LangChain's ConversationBuffer(Window|Token)Memory: which past exchanges of a session
// the prompt sees, as `history` (messages) and `history_text` (the buffer string). The memory is a policy, immutable
// in the agent; the exchanges are the session's, given to each run, so runs sharing an agent never see each other's.
#include <span>
#include <string>
#include <vector>

#include "engine/core/value.h"

namespace engine::agent {

// One turn of a conversation: what the human said and what the agent answered (text, or JSON text for a
// structured answer).
struct Exchange {
  std::string input;
  std::string output;
};

struct Memory {
  enum class Kind { None, Full, Window, TokenLimit };
  Kind kind = Kind::None;
  int k = 5;                 // window: the last k exchanges (LangChain's default)
  long max_tokens = 2000;    // token_limit: the newest exchanges whose text fits (LangChain's default)
  std::string human_prefix = "Human";
  std::string ai_prefix = "AI";
  // What the agent's prompt reads, so a turn builds only that: `history` (or a placeholder), `history_text`.
  bool messages_read = true;
  bool text_read = true;

  // The exchanges the prompt sees: a suffix of `all` (none without memory).
  std::span<const Exchange> remembered(std::span<const Exchange> all) const;
  // [{role: user, content}, {role: assistant, content}, ...]
  static Value messages(std::span<const Exchange> exchanges);
  // "Human: ...\nAI: ...", one line per message, as LangChain's get_buffer_string.
  std::string buffer_text(std::span<const Exchange> exchanges) const;
};

// The engine's token estimate of one exchange in the buffer string (4 bytes a token, as llm/ estimates usage;
// there is no tokenizer here).
long exchange_tokens(const Exchange& e, const Memory& memory);

}  // namespace engine::agent
