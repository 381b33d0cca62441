#include "engine/core/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include "engine/core/utf8.h"

namespace engine {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

namespace {

// Optimal string alignment: insertions, deletions, substitutions and swaps of neighbours each cost 1,
// because "ecoh" for "echo" is one slip of the fingers, not two.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // A third of the word's length (at least 1, at most 3) keeps hints useful without suggesting unrelated keys.
  size_t limit = std::clamp<size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: a candidate far longer (a hostile header's column of
    // megabytes) is skipped without the table of its length times the word's.
    size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (gap >= best_d) continue;
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto m = closest_match(word, candidates);
  return m ? " (did you mean '" + *m + "'?)" : "";
}

namespace {


// The character a reference (`&...;`, the text between & and ;) stands for, when it is one.
std::optional<uint32_t> xml_reference(std::string_view ref) {
  static const std::pair<std::string_view, uint32_t> kNamed[] = {
      {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
  for (const auto& [name, cp] : kNamed)
    if (ref == name) return cp;
  if (ref.size() < 2 || ref[0] != '#' || ref.size() > 10) return std::nullopt;
  bool hex = ref[1] == 'x' || ref[1] == 'X';
  std::string_view digits = ref.substr(hex ? 2 : 1);
  if (digits.empty()) return std::nullopt;
  uint32_t cp = 0;
  for (char c : digits) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : hex && std::isxdigit(static_cast<unsigned char>(c)) ? (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10)
                                                                   : -1;
    if (d < 0) return std::nullopt;
    cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
    if (cp > 0x10FFFF) return std::nullopt;
  }
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  return cp;
}

}  // namespace


std::string decode_xml_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '&') {
      size_t semi = s.find(';', i + 1);
      if (semi != std::string_view::npos && semi - i <= 11)
        if (auto cp = xml_reference(s.substr(i + 1, semi - i - 1))) {
          utf8::append(out, *cp);
          i = semi;
          continue;
        }
    }
    out += s[i];
  }
  return out;
}


namespace {

std::string escaped_byte(unsigned char c) {
  static const char kHex[] = "0123456789abcdef";
  return std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
}

}  // namespace

std::string quote_excerpt(std::string_view s, size_t max) { return "'" + printable_excerpt(s, max) + "'"; }

std::string printable_excerpt(std::string_view s, size_t max) {
  std::string out;
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (!utf8::is_continuation(c)) {  // counts characters, so a cut never splits one
      if (chars == max) break;
      ++chars;
    }
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) out += escaped_byte(c);
    else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0 &&
             static_cast<unsigned char>(s[i + 1]) >= 0x80)  // a C1 control (U+0080..U+009F), CSI among them
      out += escaped_byte(static_cast<unsigned char>(s[++i]));
    else out += static_cast<char>(c);
  }
  if (i < s.size()) out += "...";
  return out;
}

namespace {

// The length of the control sequence at s[i] (1 for a C0 byte or DEL, 2 for a C1 character), or 0.
size_t control_at(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return 1;
  if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
      static_cast<unsigned char>(s[i + 1]) < 0xA0)
    return 2;
  return 0;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && !control_at(s, i)) ++i;
  if (i == s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  while (i < s.size()) {
    size_t n = control_at(s, i);
    if (n == 0) {
      out += s[i++];
      continue;
    }
    out += escaped_byte(static_cast<unsigned char>(s[i + n - 1]));
    i += n;
  }
  return out;
}

std::vector<std::string_view> fenced_blocks(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("```", pos);
    if (open == std::string_view::npos) break;
    size_t body = text.find('\n', open + 3);
    if (body == std::string_view::npos) break;
    size_t close = text.find("```", body);
    if (close == std::string_view::npos) close = text.size();
    out.push_back(trim(text.substr(body + 1, close - body - 1)));
    pos = close + 3;
  }
  return out;
}

std::string_view unfenced(std::string_view text) {
  auto blocks = fenced_blocks(text);
  return blocks.empty() ? trim(text) : blocks[0];
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace engine
