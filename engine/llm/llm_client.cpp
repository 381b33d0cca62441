#include "engine/llm/llm_client.h"

namespace engine::llm {

bool cut_at_stop(std::string& text, const std::vector<std::string>& stop) {
  size_t cut = std::string::npos;
  for (const auto& s : stop) {
    if (s.empty()) continue;
    size_t at = text.find(s);
    if (at < cut) cut = at;
  }
  if (cut == std::string::npos) return false;
  text.resize(cut);
  return true;
}

long estimate_tokens(std::string_view text) { return static_cast<long>((text.size() + 3) / 4); }

}  // namespace engine::llm
