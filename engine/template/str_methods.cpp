#include "engine/template/str_methods.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/limits.h"
#include "engine/core/utf8.h"
#include "engine/template/builtin_args.h"
#include "engine/template/unicode_case.h"

namespace engine::tmpl {
namespace {

using namespace builtin;

size_t length_of(std::string_view s) { return utf8::count(s); }

// Python's view of a byte offset into `s`: how many characters come before it.
long long chars_before(std::string_view s, size_t bytes) { return static_cast<long long>(length_of(s.substr(0, bytes))); }

std::string fill_char(const CallArgs& a, size_t index, const char* what) {
  const Value* f = a.get(index, "fillchar");
  if (!f) return " ";
  const std::string& s = need_string(*f, what);
  if (length_of(s) != 1) fail(std::string(what) + "'s fill character must be exactly one character long");
  return s;
}

std::string repeated(const std::string& piece, size_t n) {
  std::string out;
  out.reserve(piece.size() * n);
  for (size_t i = 0; i < n; ++i) out += piece;
  return out;
}

// Every character passes `test` (and there is at least one), as the is*() methods ask.
template <class Test>
bool all_chars(const std::string& s, Test test) {
  auto cps = code_points(s);
  return !cps.empty() && std::all_of(cps.begin(), cps.end(), [&](const CodePoint& c) { return c.valid && test(c.cp); });
}

Value partitioned(const std::string& s, const std::string& sep, bool from_right) {
  if (sep.empty()) fail("empty separator");
  size_t at = from_right ? s.rfind(sep) : s.find(sep);
  if (at == std::string::npos)
    return from_right ? Value::array({"", "", s}) : Value::array({s, "", ""});
  return Value::array({s.substr(0, at), sep, s.substr(at + sep.size())});
}

Value right_split(const std::string& s, const Value* sep, long long maxsplit) {
  std::vector<std::string> parts;
  if (!sep || sep->is_null()) {  // whitespace, empty parts dropped, from the right
    size_t end = s.size();
    long long done = 0;
    while (end > 0) {
      while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
      if (end == 0) break;
      if (maxsplit >= 0 && done >= maxsplit) {
        size_t begin = 0;
        while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
        parts.push_back(s.substr(begin, end - begin));
        break;
      }
      size_t begin = end;
      while (begin > 0 && !std::isspace(static_cast<unsigned char>(s[begin - 1]))) --begin;
      parts.push_back(s.substr(begin, end - begin));
      ++done;
      end = begin;
    }
  } else {
    const std::string& d = need_string(*sep, "rsplit");
    if (d.empty()) fail("empty separator");
    size_t end = s.size();
    long long done = 0;
    for (;;) {
      size_t hit = end >= d.size() ? s.rfind(d, end - d.size()) : std::string::npos;
      if (hit == std::string::npos || (maxsplit >= 0 && done >= maxsplit)) break;
      parts.push_back(s.substr(hit + d.size(), end - hit - d.size()));
      end = hit;
      ++done;
    }
    parts.push_back(s.substr(0, end));
  }
  Value out = Value::array();
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out.push_back(*it);
  return out;
}

Value split_lines(const std::string& s, bool keepends) {
  Value out = Value::array();
  size_t start = 0, i = 0;
  while (i < s.size()) {
    size_t brk = 0;  // the line break's length in bytes
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\r') brk = i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
    else if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1C && c <= 0x1E)) brk = 1;
    else if (s.compare(i, 2, "\xC2\x85") == 0) brk = 2;                                // NEL
    else if (s.compare(i, 3, "\xE2\x80\xA8") == 0 || s.compare(i, 3, "\xE2\x80\xA9") == 0) brk = 3;  // LS, PS
    if (brk == 0) {
      ++i;
      continue;
    }
    out.push_back(s.substr(start, i - start + (keepends ? brk : 0)));
    i += brk;
    start = i;
  }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

// find / rfind / index / rindex / count over s[start:end], positions in characters.
long long search(const std::string& s, const std::string& needle, const CallArgs& a, bool from_right) {
  long long n = static_cast<long long>(length_of(s));
  auto clamp = [&](long long i) { return i < 0 ? std::max(0LL, n + i) : std::min(i, n); };
  long long start = clamp(need_int(a.get(1, "start"), 0, "find"));
  long long end = a.get(2, "end") && !a.get(2, "end")->is_null() ? clamp(need_int(a.get(2, "end"), n, "find")) : n;
  if (start > end) return -1;
  // Byte offsets of the window.
  auto cps = code_points(s);
  auto offset = [&](long long chars) {
    size_t b = 0;
    for (long long i = 0; i < chars && i < static_cast<long long>(cps.size()); ++i) b += cps[static_cast<size_t>(i)].bytes.size();
    return b;
  };
  size_t b0 = offset(start), b1 = offset(end);
  std::string_view window(s.data() + b0, b1 - b0);
  size_t hit = from_right ? window.rfind(needle) : window.find(needle);
  if (hit == std::string_view::npos) return -1;
  return start + chars_before(window, hit);
}

// One replacement field's format spec, Python's mini-language: [[fill]align][sign][#][0][width][,][.precision][type].
std::string formatted_field(const Value& v, const std::string& spec) {
  size_t i = 0;
  std::string fill = " ";
  char align = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  auto cps = code_points(spec);
  if (cps.size() >= 2 && cps[1].valid && is_align(static_cast<char>(cps[1].cp)) && cps[1].cp < 0x80) {
    fill = std::string(cps[0].bytes);
    align = static_cast<char>(cps[1].cp);
    i = cps[0].bytes.size() + 1;
  } else if (!spec.empty() && is_align(spec[0])) {
    align = spec[0];
    i = 1;
  }
  char sign = '-';
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) sign = spec[i++];
  bool alternate = i < spec.size() && spec[i] == '#' && ++i;
  if (i < spec.size() && spec[i] == '0') {
    if (!align) fill = "0", align = '=';
    ++i;
  }
  size_t width = 0;
  while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) {
    width = width * 10 + static_cast<size_t>(spec[i++] - '0');
    if (width > limits::kFormatWidth) fail("a format width past " + std::to_string(limits::kFormatWidth));
  }
  bool grouping = i < spec.size() && spec[i] == ',' && ++i;
  int precision = -1;
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    precision = 0;
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) {
      precision = precision * 10 + (spec[i++] - '0');
      if (precision > limits::kFormatWidth) fail("a format precision past " + std::to_string(limits::kFormatWidth));
    }
  }
  char type = i < spec.size() ? spec[i++] : 0;
  if (i != spec.size()) fail("invalid format specifier '" + spec + "'");

  std::string body, prefix;
  if (v.is_string() || (!v.is_number() && !v.is_boolean())) {
    if (type && type != 's') fail("unknown format code '" + std::string(1, type) + "' for a " + type_name(v));
    body = py_str(v);
    if (precision >= 0) {
      auto parts = code_points(body);
      if (parts.size() > static_cast<size_t>(precision)) {
        std::string cut;
        for (int k = 0; k < precision; ++k) cut += parts[static_cast<size_t>(k)].bytes;
        body = cut;
      }
    }
    if (!align) align = '<';
  } else {
    bool integer = v.is_number_integer() || v.is_number_unsigned() || v.is_boolean();
    double x = v.is_boolean() ? (v.get<bool>() ? 1 : 0) : v.get<double>();
    bool negative = std::signbit(x);
    char buf[512];
    if (!type) type = integer ? 'd' : 'r';
    if (type == 'd' || type == 'x' || type == 'X' || type == 'o' || type == 'b' || type == 'c') {
      if (!integer) fail("unknown format code '" + std::string(1, type) + "' for a float");
      long long n = v.is_boolean() ? (v.get<bool>() ? 1 : 0) : v.get<long long>();
      unsigned long long m = n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
      if (type == 'c') {
        body.clear();
        utf8::append(body, static_cast<uint32_t>(m));
      } else if (type == 'b') {
        body = m == 0 ? "0" : "";
        for (; m; m >>= 1) body.insert(body.begin(), static_cast<char>('0' + (m & 1)));
      } else {
        std::snprintf(buf, sizeof buf, type == 'd' ? "%llu" : type == 'x' ? "%llx" : type == 'X' ? "%llX" : "%llo", m);
        body = buf;
      }
      if (alternate && type != 'd' && type != 'c') prefix = type == 'x' ? "0x" : type == 'X' ? "0X" : type == 'o' ? "0o" : "0b";
    } else if (type == 'f' || type == 'F' || type == 'e' || type == 'E' || type == 'g' || type == 'G' || type == '%') {
      double y = std::fabs(type == '%' ? x * 100 : x);
      std::string f = std::string("%.*") + (type == '%' ? 'f' : type);
      std::snprintf(buf, sizeof buf, f.c_str(), precision < 0 ? 6 : precision, y);
      body = buf;
      if (type == '%') body += '%';
    } else if (type == 'r') {  // no type on a float: as str(), or with a precision, general with at least one digit
      std::string text = precision < 0 ? py_str(Value(std::fabs(x))) : "";
      if (precision >= 0) {
        std::snprintf(buf, sizeof buf, "%.*g", precision == 0 ? 1 : precision, std::fabs(x));
        text = buf;
      }
      body = text;
    } else {
      fail("unknown format code '" + std::string(1, type) + "' for a number");
    }
    if (grouping) {  // thousands separators in the integer part
      size_t end = body.find_first_not_of("0123456789");
      if (end == std::string::npos) end = body.size();
      for (long long at = static_cast<long long>(end) - 3; at > 0; at -= 3) body.insert(static_cast<size_t>(at), ",");
    }
    prefix = (negative && (x != 0 || std::signbit(x)) ? "-" : sign == '+' ? "+" : sign == ' ' ? " " : "") + prefix;
    if (!align) align = '>';
  }
  size_t len = length_of(prefix) + length_of(body);
  if (len >= width) return prefix + body;
  std::string pad = repeated(fill, width - len);
  if (align == '<') return prefix + body + pad;
  if (align == '>') return pad + prefix + body;
  if (align == '=') return prefix + pad + body;
  size_t left = (width - len) / 2;
  return repeated(fill, left) + prefix + body + repeated(fill, width - len - left);
}

// str.format: "{}", "{0}", "{name}", each with an optional "!r"/"!s" and ":spec"; "{{" and "}}" are braces.
std::string format_method(const std::string& s, const CallArgs& a) {
  std::string out;
  size_t next_auto = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') { out += '{'; ++i; continue; }
    if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') { out += '}'; ++i; continue; }
    if (s[i] == '}') fail("single '}' encountered in format string");
    if (s[i] != '{') { out += s[i]; continue; }
    size_t close = s.find('}', i);
    if (close == std::string::npos) fail("single '{' encountered in format string");
    std::string field = s.substr(i + 1, close - i - 1), spec, conversion;
    if (size_t colon = field.find(':'); colon != std::string::npos) spec = field.substr(colon + 1), field.resize(colon);
    if (size_t bang = field.find('!'); bang != std::string::npos) conversion = field.substr(bang + 1), field.resize(bang);
    // The field's name, then `[key]` or `.attr` steps into the argument: {0[k]}, {user.name}, {a[0]}.
    std::string name = field.substr(0, field.find_first_of(".["));
    const Value* arg = nullptr;
    if (name.empty()) arg = a.get(next_auto++, "");
    else if (std::all_of(name.begin(), name.end(), ::isdigit)) arg = a.get(std::stoul(name.substr(0, 9)), "");
    else arg = a.get(SIZE_MAX, name);
    for (size_t at = name.size(); arg && at < field.size();) {
      bool item = field[at] == '[';
      size_t end = item ? field.find(']', at) : field.find_first_of(".[", at + 1);
      if (item && end == std::string::npos) fail("format: missing ']' in field '{" + field + "}'");
      std::string key = field.substr(at + 1, (end == std::string::npos ? field.size() : end) - at - 1);
      at = end == std::string::npos ? field.size() : end + (item ? 1 : 0);
      bool index = item && !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit);
      if (arg->is_array() && index) {
        size_t i = std::stoul(key.substr(0, 9));
        arg = i < arg->size() ? &(*arg)[i] : nullptr;
      } else if (arg->is_object()) {
        auto it = arg->find(key);
        arg = it != arg->end() ? &*it : nullptr;
      } else {
        arg = nullptr;
      }
    }
    if (!arg) fail("format: no argument for field '{" + field + "}'");
    Value shown = *arg;
    if (conversion == "r") shown = py_repr(*arg);
    else if (!conversion.empty() && conversion != "s") fail("format: unknown conversion '!" + conversion + "'");
    out += formatted_field(shown, spec);
    i = close;
  }
  return out;
}

}  // namespace

std::optional<Value> call_str_method(const std::string& s, std::string_view name, const CallArgs& a) {
  auto arg_string = [&](size_t i, const char* key) -> const std::string& {
    const Value* v = a.get(i, key);
    if (!v) fail(std::string(name) + " expects an argument");
    return need_string(*v, std::string(name).c_str());
  };
  if (name == "casefold") {  // lower case, with ß folded to ss as Python's full case folding does
    std::string folded = to_lower(s), out;
    for (size_t i = 0; i < folded.size(); ++i) {
      if (folded.compare(i, 2, "\xC3\x9F") == 0) out += "ss", ++i;
      else out += folded[i];
    }
    return out;
  }
  if (name == "swapcase") return swap_case(s);
  if (name == "format") return format_method(s, a);
  if (name == "center" || name == "ljust" || name == "rjust") {
    size_t width = need_width(a.get(0, "width"), 0, std::string(name).c_str());
    std::string fill = fill_char(a, 1, std::string(name).c_str());
    size_t len = length_of(s);
    if (len >= width) return s;
    size_t total = width - len;
    if (name == "ljust") return s + repeated(fill, total);
    if (name == "rjust") return repeated(fill, total) + s;
    size_t left = total / 2 + (total & width & 1);  // Python's str.center puts the odd space on the left
    return repeated(fill, left) + s + repeated(fill, total - left);
  }
  if (name == "expandtabs") {  // each tab pads to the next multiple of tabsize; a line break starts a new column
    long long tabsize = need_int(a.get(0, "tabsize"), 8, "expandtabs");
    size_t size = tabsize < 0 ? 0 : need_width(a.get(0, "tabsize"), 8, "expandtabs");
    std::string out;
    size_t column = 0;
    for (const CodePoint& c : code_points(s)) {
      if (c.cp == '\t') {
        size_t pad = size == 0 ? 0 : size - column % size;
        if (out.size() + pad > limits::kTemplateWidth) fail("the expanded string would be longer than " + std::to_string(limits::kTemplateWidth));
        out.append(pad, ' ');
        column += pad;
      } else {
        out += c.bytes;
        column = c.cp == '\n' || c.cp == '\r' ? 0 : column + 1;
      }
    }
    return out;
  }
  if (name == "zfill") {
    size_t width = need_width(a.get(0, "width"), 0, "zfill");
    size_t len = length_of(s);
    if (len >= width) return s;
    bool sign = !s.empty() && (s[0] == '+' || s[0] == '-');
    return (sign ? s.substr(0, 1) : "") + std::string(width - len, '0') + (sign ? s.substr(1) : s);
  }
  if (name == "count") {
    const std::string& sub = arg_string(0, "sub");
    long long n = 0;
    if (sub.empty()) return static_cast<long long>(length_of(s)) + 1;
    for (size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size())) ++n;
    return n;
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex") {
    long long at = search(s, arg_string(0, "sub"), a, name[0] == 'r');
    if (at < 0 && (name == "index" || name == "rindex")) fail("substring not found");
    return at;
  }
  if (name == "partition") return partitioned(s, arg_string(0, "sep"), false);
  if (name == "rpartition") return partitioned(s, arg_string(0, "sep"), true);
  if (name == "rsplit") return right_split(s, a.get(0, "sep"), need_int(a.get(1, "maxsplit"), -1, "rsplit"));
  if (name == "splitlines") return split_lines(s, a.get(0, "keepends") && truthy(*a.get(0, "keepends")));
  if (name == "removeprefix") {
    const std::string& p = arg_string(0, "prefix");
    return s.compare(0, p.size(), p) == 0 ? s.substr(p.size()) : s;
  }
  if (name == "removesuffix") {
    const std::string& p = arg_string(0, "suffix");
    return !p.empty() && s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0
               ? s.substr(0, s.size() - p.size())
               : s;
  }
  if (name == "isalpha") return all_chars(s, char_is_alpha);
  if (name == "isdigit" || name == "isdecimal" || name == "isnumeric") return all_chars(s, char_is_digit);
  if (name == "isalnum") return all_chars(s, [](uint32_t cp) { return char_is_alpha(cp) || char_is_digit(cp); });
  if (name == "isspace") return all_chars(s, char_is_space);
  if (name == "isupper" || name == "islower") {
    // At least one cased character, and none of the other case.
    bool cased = false, other = false;
    for (const CodePoint& c : code_points(s)) {
      if (!c.valid) continue;
      bool up = char_is_upper(c.cp), low = char_is_lower(c.cp);
      cased = cased || (name == "isupper" ? up : low);
      other = other || (name == "isupper" ? low : up);
    }
    return cased && !other;
  }
  if (name == "istitle") {
    bool cased = false, previous_cased = false;
    for (const CodePoint& c : code_points(s)) {
      bool up = c.valid && char_is_upper(c.cp), low = c.valid && char_is_lower(c.cp);
      if ((up && previous_cased) || (low && !previous_cased)) return false;
      cased = cased || up;
      previous_cased = up || low;
    }
    return cased;
  }
  return std::nullopt;
}

}  // namespace engine::tmpl
