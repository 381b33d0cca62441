#include "engine/agent/memory.h"

#include "engine/llm/llm_client.h"

namespace engine::agent {

long exchange_tokens(const Exchange& e, const Memory& memory) {
  // The two lines as buffer_text writes them, "Human: <input>\nAI: <output>\n", estimated part by part.
  return llm::estimate_tokens(e.input) + llm::estimate_tokens(e.output) +
         llm::estimate_tokens(memory.human_prefix) + llm::estimate_tokens(memory.ai_prefix) + 2;
}

std::span<const Exchange> Memory::remembered(std::span<const Exchange> all) const {
  switch (kind) {
    case Kind::None: return {};
    case Kind::Full: return all;
    case Kind::Window: return all.last(std::min(all.size(), static_cast<size_t>(k)));
    case Kind::TokenLimit: {
      // From the newest back, as far as the budget goes: LangChain prunes the oldest first.
      long used = 0;
      size_t keep = 0;
      for (size_t i = all.size(); i > 0; --i) {
        used += exchange_tokens(all[i - 1], *this);
        if (used > max_tokens) break;
        ++keep;
      }
      return all.last(keep);
    }
  }
  return {};
}

Value Memory::messages(std::span<const Exchange> exchanges) {
  Value out = Value::array();
  // Built field by field: nlohmann's initializer lists build and copy a temporary per pair.
  auto message = [&](const char* role, const std::string& content) {
    Value m = Value::object();
    m["role"] = role;
    m["content"] = content;
    out.push_back(std::move(m));
  };
  for (const auto& e : exchanges) {
    message("user", e.input);
    message("assistant", e.output);
  }
  return out;
}

std::string Memory::buffer_text(std::span<const Exchange> exchanges) const {
  std::string out;
  size_t bytes = 0;
  for (const auto& e : exchanges) bytes += human_prefix.size() + ai_prefix.size() + e.input.size() + e.output.size() + 6;
  out.reserve(bytes);
  for (const auto& e : exchanges) {
    if (!out.empty()) out += '\n';
    out += human_prefix + ": " + e.input + "\n" + ai_prefix + ": " + e.output;
  }
  return out;
}

}  // namespace engine::agent
