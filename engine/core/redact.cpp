#include "engine/core/redact.h"

#include <algorithm>
#include <cstdlib>

#include "engine/core/json_text.h"

namespace engine {
namespace {

size_t min_run(const std::string& secret) { return std::min(secret.size(), kMinSecretFragment); }

unsigned pair_at(std::string_view s, size_t i) {
  return static_cast<unsigned char>(s[i]) << 8 | static_cast<unsigned char>(s[i + 1]);
}

}  // namespace

Redactor::Redactor(std::vector<std::string> secrets) {
  for (auto& s : secrets)
    if (s.size() >= 4 && std::find(secrets_.begin(), secrets_.end(), s) == secrets_.end()) secrets_.push_back(std::move(s));
  if (secrets_.empty()) return;
  pairs_.assign(65536 / 64, 0);
  for (const auto& s : secrets_)
    for (size_t i = 0; i + min_run(s) <= s.size(); ++i) {
      unsigned p = pair_at(s, i);
      pairs_[p >> 6] |= uint64_t{1} << (p & 63);
    }
}

size_t Redactor::secret_run(std::string_view text, size_t i) const {
  if (i + 1 >= text.size()) return 0;
  unsigned p = pair_at(text, i);
  if (!(pairs_[p >> 6] >> (p & 63) & 1)) return 0;
  size_t best = 0;
  for (const auto& s : secrets_) {
    size_t need = min_run(s);
    if (i + need > text.size()) continue;
    std::string_view head = text.substr(i, need);
    for (size_t at = s.find(head); at != std::string::npos; at = s.find(head, at + 1)) {
      size_t n = need;
      while (at + n < s.size() && i + n < text.size() && s[at + n] == text[i + n]) ++n;
      best = std::max(best, n);
    }
  }
  return best;
}

bool Redactor::could_grow(std::string_view text, size_t i) const {
  std::string_view tail = text.substr(i);
  for (const auto& s : secrets_)
    if (tail.size() < s.size() && s.find(tail) != std::string::npos) return true;
  return false;
}

size_t Redactor::redact_stream(std::string_view text, size_t from, size_t limit, bool final, std::string& out) const {
  if (secrets_.empty()) {
    out.append(text.substr(from, limit - from));
    return limit;
  }
  // Where an undecided tail begins: the longest tail that is a piece of a secret. A shorter tail that is not one
  // means no longer tail is, so the search stops at the first miss.
  size_t undecided = text.size();
  if (!final) {
    size_t longest = 0;
    for (const auto& s : secrets_) longest = std::max(longest, s.size());
    for (size_t k = 1; k <= longest && k <= text.size() - from; ++k) {
      if (!could_grow(text, text.size() - k)) break;
      undecided = text.size() - k;
    }
  }
  size_t end = final ? limit : std::min(limit, undecided);
  size_t plain = from, i = from;
  while (i < end) {
    size_t run = secret_run(text, i);
    if (run == 0) {
      ++i;
      continue;
    }
    if (!final && i + run > limit) {  // the run reaches text not yet released (a possible stop sequence)
      end = i;
      break;
    }
    out.append(text.substr(plain, i - plain));
    out += "***";
    i += run;  // a run may end past `end`: it is decided whole, and what follows it waits
    plain = i;
  }
  if (plain < end) out.append(text.substr(plain, end - plain));
  return std::max(end, plain);
}

std::string Redactor::redact(std::string_view text) const {
  std::string out;
  if (secrets_.empty()) return std::string(text);
  out.reserve(text.size());
  redact_stream(text, 0, text.size(), true, out);
  return out;
}

void redact_value(Value& v, const Redactor& redactor) {
  if (redactor.empty()) return;
  if (v.is_string()) {
    v = redactor.redact(v.get_ref<const std::string&>());
  } else if (v.is_array()) {
    for (auto& e : v) redact_value(e, redactor);
  } else if (v.is_object()) {
    Value out = Value::object();
    for (auto& [k, e] : v.items()) {
      redact_value(e, redactor);
      out[redactor.redact(k)] = std::move(e);
    }
    v = std::move(out);
  }
}

const std::vector<std::string>& standard_key_variables() {
  static const std::vector<std::string> names{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"};
  return names;
}

}  // namespace engine
