#include "engine/core/utf8.h"

namespace engine::utf8 {

size_t sequence_length(std::string_view s, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 0 || c == 0xC0 || c == 0xC1 || c > 0xF4 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if (!is_continuation(static_cast<unsigned char>(s[i + k]))) return 0;
  unsigned char c1 = s[i + 1];
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 either.
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))
    return 0;
  return n;
}

size_t find_invalid(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == 0) return i;
    size_t n = sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

void append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string replace_invalid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

size_t count(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += !is_continuation(c);
  return n;
}

size_t cut(std::string_view s, size_t at) {
  if (at >= s.size()) return s.size();
  while (at > 0 && is_continuation(static_cast<unsigned char>(s[at]))) --at;
  return at;
}

size_t offset(std::string_view s, size_t chars) {
  for (size_t i = 0; i < s.size(); ++i)
    if (!is_continuation(static_cast<unsigned char>(s[i])) && chars-- == 0) return i;
  return s.size();
}

size_t complete_end(std::string_view s, size_t end) {
  for (size_t back = 1; back <= 3 && back <= end; ++back) {
    auto c = static_cast<unsigned char>(s[end - back]);
    if (is_continuation(c)) continue;  // keep looking for the lead
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? end - back : end;
  }
  return end;
}

size_t decode(std::string_view s, size_t i, uint32_t& cp) {
  size_t n = sequence_length(s, i);
  if (n == 0) return 0;
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  uint32_t c = b(0);
  cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(k) & 0x3F);
  return n;
}

}  // namespace engine::utf8
