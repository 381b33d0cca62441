#include "engine/template/unicode_case.h"

#include <algorithm>

#include <locale.h>
#include <wctype.h>

#include "engine/core/utf8.h"

namespace engine::tmpl {
namespace {

// Built once and never changed: the C library's Unicode character tables, whatever the process's own locale.
locale_t utf8_locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", nullptr);
  return loc;
}

template <class Map>
std::string mapped(std::string_view s, Map map) {
  std::string out;
  out.reserve(s.size());
  for (const CodePoint& c : code_points(s)) {
    if (!c.valid) out += c.bytes;
    else map(out, c.cp);
  }
  return out;
}

// Python's full upper-case mappings the C tables lack (one letter becoming several).
bool append_special_upper(std::string& out, uint32_t cp) {
  switch (cp) {
    case 0xDF: out += "SS"; return true;        // ß
    case 0xFB00: out += "FF"; return true;      // ﬀ
    case 0xFB01: out += "FI"; return true;      // ﬁ
    case 0xFB02: out += "FL"; return true;      // ﬂ
    case 0x149: out += "\xCA\xBCN"; return true;  // ŉ
    default: return false;
  }
}

}  // namespace

std::vector<CodePoint> code_points(std::string_view s) {
  std::vector<CodePoint> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = 0;
    size_t n = utf8::decode(s, i, cp);
    if (n == 0) {
      out.push_back({static_cast<unsigned char>(s[i]), s.substr(i, 1), false});
      ++i;
      continue;
    }
    out.push_back({cp, s.substr(i, n), true});
    i += n;
  }
  return out;
}

size_t character_count(std::string_view s) {
  bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  return ascii ? s.size() : code_points(s).size();
}

bool char_is_alpha(uint32_t cp) { return iswalpha_l(static_cast<wint_t>(cp), utf8_locale()); }
bool char_is_digit(uint32_t cp) { return cp >= '0' && cp <= '9'; }
bool char_is_space(uint32_t cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F) || cp == 0x85 ||
         iswspace_l(static_cast<wint_t>(cp), utf8_locale());
}
bool char_is_upper(uint32_t cp) { return iswupper_l(static_cast<wint_t>(cp), utf8_locale()); }
bool char_is_lower(uint32_t cp) { return iswlower_l(static_cast<wint_t>(cp), utf8_locale()); }
uint32_t upper_of(uint32_t cp) { return static_cast<uint32_t>(towupper_l(static_cast<wint_t>(cp), utf8_locale())); }
uint32_t lower_of(uint32_t cp) { return static_cast<uint32_t>(towlower_l(static_cast<wint_t>(cp), utf8_locale())); }

std::string to_upper(std::string_view s) {
  return mapped(s, [](std::string& out, uint32_t cp) {
    if (!append_special_upper(out, cp)) utf8::append(out, upper_of(cp));
  });
}

std::string to_lower(std::string_view s) {
  return mapped(s, [](std::string& out, uint32_t cp) {
    if (cp == 0x130) out += "i\xCC\x87";  // İ: i and a combining dot, as Python
    else utf8::append(out, lower_of(cp));
  });
}

std::string swap_case(std::string_view s) {
  return mapped(s, [](std::string& out, uint32_t cp) {
    if (char_is_upper(cp)) utf8::append(out, lower_of(cp));
    else if (char_is_lower(cp) && !append_special_upper(out, cp)) utf8::append(out, upper_of(cp));
    else if (!char_is_lower(cp)) utf8::append(out, cp);
  });
}

std::string capitalized(std::string_view s) {
  std::vector<CodePoint> cps = code_points(s);
  if (cps.empty()) return "";
  std::string out = to_upper(cps[0].bytes);
  out += to_lower(s.substr(cps[0].bytes.size()));
  return out;
}

}  // namespace engine::tmpl
