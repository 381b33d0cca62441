#include "engine/template/builtins.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "engine/core/utf8.h"
#include "engine/template/builtin_args.h"
#include "engine/template/integer.h"
#include "engine/template/markup_filters.h"
#include "engine/template/py_value.h"
#include "engine/template/str_methods.h"
#include "engine/template/unicode_case.h"

namespace engine::tmpl {

const Value* CallArgs::get(size_t i, std::string_view name) const {
  if (i < positional.size()) return &positional[i];
  for (const auto& [k, v] : keyword)
    if (k == name) return &v;
  return nullptr;
}

namespace {

using namespace builtin;

bool arg_bool(const Value* v, bool dflt) { return v ? truthy(*v) : dflt; }

// Iterating a dict yields its keys and a string its characters, as in Python.
Value as_list(const Value& v) {
  if (v.is_array()) return v;
  Value out = Value::array();
  if (v.is_object()) {
    for (const auto& [k, _] : v.items()) out.push_back(key_of(k));
  } else if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    for (size_t i = 0; i < s.size();) {
      size_t n = 1;
      unsigned char c = s[i];
      if (c >= 0xF0) n = 4;
      else if (c >= 0xE0) n = 3;
      else if (c >= 0xC0) n = 2;
      out.push_back(s.substr(i, n));
      i += n;
    }
  } else if (!v.is_null()) {
    fail("'" + type_name(v) + "' object is not iterable");
  } else {
    fail("'NoneType' object is not iterable");
  }
  return out;
}

// attribute="a.b" or an integer index, as Jinja2's make_attrgetter.
const Value* get_attribute(const Value& item, const std::string& path) {
  const Value* cur = &item;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (cur->is_object()) {
      auto it = cur->find(part);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (cur->is_array() && cur->size() == 2 && (part == "grouper" || part == "list")) {
      cur = &(*cur)[part == "grouper" ? 0 : 1];  // groupby's groups, as in the renderer's attribute access
    } else if (cur->is_array() && !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit)) {
      size_t i = 0;
      auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), i);
      if (ec != std::errc() || i >= cur->size()) return nullptr;
      cur = &(*cur)[i];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

std::string lower(const std::string& s) { return to_lower(s); }
std::string upper(const std::string& s) { return to_upper(s); }
std::string strip_chars(const std::string& s, const Value* chars, bool left, bool right) {
  std::string set = chars && chars->is_string() ? chars->get<std::string>() : std::string(" \t\n\r\f\v");
  size_t b = 0, e = s.size();
  if (left)
    while (b < e && set.find(s[b]) != std::string::npos) ++b;
  if (right)
    while (e > b && set.find(s[e - 1]) != std::string::npos) --e;
  return s.substr(b, e - b);
}
std::string replace_all(const std::string& s, const std::string& from, const std::string& to, long long count) {
  std::string out;
  if (from.empty()) {  // Python inserts `to` between every character
    out = to;
    for (char c : s) out += c, out += to;
    return out;
  }
  size_t pos = 0;
  long long done = 0;
  for (;;) {
    size_t hit = s.find(from, pos);
    if (hit == std::string::npos || (count >= 0 && done >= count)) break;
    out.append(s, pos, hit - pos);
    out += to;
    pos = hit + from.size();
    ++done;
  }
  out.append(s, pos);
  return out;
}

// ---- filters ----

Value f_abs(const Value& v, const CallArgs&) {
  if (v.is_number_integer() || v.is_number_unsigned()) return int_arith("*", int_of(v), int_of(v) < 0 ? -1 : 1);
  if (v.is_number()) return std::fabs(v.get<double>());
  fail("abs expects a number, got " + type_name(v));
}
Value f_capitalize(const Value& v, const CallArgs&) { return capitalized(py_str(v)); }
// Jinja2's title: words begin after '-', whitespace or an opening bracket; each word's first character upper, the
// rest lower (so "o'neil" is "O'neil", not str.title's "O'Neil").
Value f_title(const Value& v, const CallArgs&) {
  std::string s = py_str(v), out;
  bool start = true;
  for (const CodePoint& c : code_points(s)) {
    bool separator = c.valid && (c.cp == '-' || c.cp == '(' || c.cp == '{' || c.cp == '[' || c.cp == '<' || char_is_space(c.cp));
    if (separator || !c.valid) out += c.bytes;
    else out += start ? to_upper(c.bytes) : to_lower(c.bytes);
    start = separator;
  }
  return out;
}
Value f_first(const Value& v, const CallArgs&) {
  Value l = as_list(v);
  return l.empty() ? Value() : l.front();
}
Value f_last(const Value& v, const CallArgs&) {
  Value l = as_list(v);
  return l.empty() ? Value() : l.back();
}
Value f_float(const Value& v, const CallArgs& a) {
  if (v.is_number()) return v.get<double>();
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_string()) {
    try {
      size_t used = 0;
      std::string s(engine::tmpl::py_str(v));
      double d = std::stod(s, &used);
      if (used == s.size()) return d;
    } catch (...) {
    }
  }
  const Value* d = a.get(0, "default");
  return d ? *d : Value(0.0);
}
// Python's int(text, base): a sign, then for base 0 a 0b/0o/0x prefix (or a decimal without leading zeros), for
// base 2, 8 or 16 that base's prefix optionally, and single underscores between digits. Nothing when it is not one.
std::optional<long long> python_int(std::string_view s, int base) {
  bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  auto prefixed = [&](char p) {
    return s.size() > 2 && s[0] == '0' && std::tolower(static_cast<unsigned char>(s[1])) == p;
  };
  int b = base;
  if ((base == 0 || base == 2) && prefixed('b')) b = 2, s.remove_prefix(2);
  else if ((base == 0 || base == 8) && prefixed('o')) b = 8, s.remove_prefix(2);
  else if ((base == 0 || base == 16) && prefixed('x')) b = 16, s.remove_prefix(2);
  else if (base == 0) {
    b = 10;
    if (s.size() > 1 && s[0] == '0' && s.find_first_not_of("0_") != std::string_view::npos) return std::nullopt;
  }
  if (!s.empty() && s[0] == '_' && b != 10) s.remove_prefix(1);  // 0x_1f
  std::string digits;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (i == 0 || i + 1 == s.size() || s[i + 1] == '_') return std::nullopt;
      continue;
    }
    digits += s[i];
  }
  if (digits.empty()) return std::nullopt;
  unsigned long long u = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, b);
  if (end != digits.data() + digits.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range || u > (negative ? 9223372036854775808ULL : 9223372036854775807ULL))
    throw BuiltinError{"integer overflow: '" + std::string(s.substr(0, 40)) + "' does not fit in 64 bits",
                       ErrorKind::TemplateIntegerOverflow};
  if (ec != std::errc()) return std::nullopt;
  return negative ? static_cast<long long>(0 - u) : static_cast<long long>(u);
}

Value f_int(const Value& v, const CallArgs& a) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v;
  if (v.is_number_float()) return int_from_double(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_string()) {
    std::string s = strip_chars(v.get<std::string>(), nullptr, true, true);
    long long base = need_int(a.get(1, "base"), 10, "int");
    if (base != 0 && (base < 2 || base > 36)) fail("int() base must be >= 2 and <= 36, or 0");
    if (auto n = python_int(s, static_cast<int>(base))) return *n;
    size_t used = 0;
    try {
      double d = std::stod(s, &used);
      if (used == s.size()) return int_from_double(d);
    } catch (const std::logic_error&) {
    }
  }
  const Value* d = a.get(0, "default");
  return d ? *d : Value(0);
}
Value f_join(const Value& v, const CallArgs& a) {
  const Value* sep = a.get(0, "d");
  const Value* attr = a.get(1, "attribute");
  std::string s = sep ? py_str(*sep) : "";
  std::string out;
  bool first = true;
  for (const auto& e : as_list(v)) {
    if (!first) out += s;
    first = false;
    if (attr) {
      const Value* x = get_attribute(e, py_str(*attr));
      if (x) append_py_str(out, *x);
    } else {
      append_py_str(out, e);
    }
  }
  return out;
}
Value f_length(const Value& v, const CallArgs&) {
  if (v.is_string()) return character_count(v.get_ref<const std::string&>());
  if (v.is_array() || v.is_object()) return v.size();
  fail("object of type '" + type_name(v) + "' has no len()");
}
Value f_list(const Value& v, const CallArgs&) { return as_list(v); }
Value f_lower(const Value& v, const CallArgs&) { return lower(py_str(v)); }
Value f_upper(const Value& v, const CallArgs&) { return upper(py_str(v)); }
Value f_string(const Value& v, const CallArgs&) { return py_str(v); }
Value f_trim(const Value& v, const CallArgs& a) { return strip_chars(py_str(v), a.get(0, "chars"), true, true); }
Value f_replace(const Value& v, const CallArgs& a) {
  const Value* from = a.get(0, "old");
  const Value* to = a.get(1, "new");
  if (!from || !to) fail("replace expects two arguments: the old and the new text");
  return replace_all(py_str(v), py_str(*from), py_str(*to), need_int(a.get(2, "count"), -1, "replace"));
}
Value f_indent(const Value& v, const CallArgs& a) {
  const Value* w = a.get(0, "width");
  std::string pad = w && w->is_string() ? w->get<std::string>() : std::string(need_width(w, 4, "indent"), ' ');
  bool first = arg_bool(a.get(1, "first"), false);
  bool blank = arg_bool(a.get(2, "blank"), false);
  std::string s = py_str(v), out;
  size_t start = 0;
  bool is_first = true;
  while (start <= s.size()) {
    size_t nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    bool pad_it = is_first ? first : (blank || !line.empty());
    if (pad_it) out += pad;
    out += line;
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
    is_first = false;
  }
  return out;
}
Value f_tojson(const Value& v, const CallArgs& a) {
  const Value* ind = a.get(0, "indent");
  return tojson(v, ind && !ind->is_null() ? static_cast<int>(need_width(ind, 0, "tojson")) : -1);
}
// The reverse of tojson, for a model's or a tool's JSON text: read with the engine's depth bound.
Value f_fromjson(const Value& v, const CallArgs&) {
  if (!v.is_string()) fail("expects a string, got " + type_name(v));
  JsonError why;
  Value parsed = parse_json(v.get<std::string>(), &why);
  if (parsed.is_discarded()) fail("the text is not JSON: " + why.message);
  return parsed;
}
Value f_reverse(const Value& v, const CallArgs&) {
  if (v.is_string()) {
    Value chars = as_list(v);
    std::string out;
    for (auto it = chars.rbegin(); it != chars.rend(); ++it) out += it->get<std::string>();
    return out;
  }
  Value l = as_list(v);
  std::reverse(l.begin(), l.end());
  return l;
}
Value sorted(Value l, const CallArgs& a, size_t attr_pos) {
  bool reverse = arg_bool(a.get(0, "reverse"), false);
  bool case_sensitive = arg_bool(a.get(1, "case_sensitive"), false);
  const Value* attr = a.get(attr_pos, "attribute");
  auto key = [&](const Value& e) -> Value {
    const Value* k = attr ? get_attribute(e, py_str(*attr)) : &e;
    if (!k) return Value();
    if (!case_sensitive && k->is_string()) return lower(k->get<std::string>());
    return *k;
  };
  std::stable_sort(l.begin(), l.end(), [&](const Value& x, const Value& y) {
    return reverse ? py_compare(key(y), key(x)) < 0 : py_compare(key(x), key(y)) < 0;
  });
  return l;
}
Value f_sort(const Value& v, const CallArgs& a) { return sorted(as_list(v), a, 2); }
Value f_unique(const Value& v, const CallArgs& a) {
  bool case_sensitive = arg_bool(a.get(0, "case_sensitive"), false);
  const Value* attr = a.get(1, "attribute");
  Value out = Value::array(), seen = Value::array();
  for (const auto& e : as_list(v)) {
    const Value* k = attr ? get_attribute(e, py_str(*attr)) : &e;
    Value key = k ? *k : Value();
    if (!case_sensitive && key.is_string()) key = lower(key.get<std::string>());
    if (std::none_of(seen.begin(), seen.end(), [&](const Value& s) { return py_equal(s, key); })) {
      seen.push_back(key);
      out.push_back(e);
    }
  }
  return out;
}
Value f_sum(const Value& v, const CallArgs& a) {
  const Value* attr = a.get(0, "attribute");
  const Value* start = a.get(1, "start");
  Value total = start ? *start : Value(0);
  for (const auto& e : as_list(v)) {
    const Value* x = attr ? get_attribute(e, py_str(*attr)) : &e;
    if (!x || !x->is_number()) fail("sum expects numbers");
    if ((total.is_number_integer() || total.is_number_unsigned()) && (x->is_number_integer() || x->is_number_unsigned()))
      total = int_arith("+", int_of(total), int_of(*x));
    else total = total.get<double>() + x->get<double>();
  }
  return total;
}
Value extreme(const Value& v, const CallArgs& a, bool want_max) {
  Value l = as_list(v);
  if (l.empty()) return Value();
  bool case_sensitive = arg_bool(a.get(0, "case_sensitive"), false);
  const Value* attr = a.get(1, "attribute");
  auto key = [&](const Value& e) -> Value {
    const Value* k = attr ? get_attribute(e, py_str(*attr)) : &e;
    Value r = k ? *k : Value();
    if (!case_sensitive && r.is_string()) r = lower(r.get<std::string>());
    return r;
  };
  size_t best = 0;
  for (size_t i = 1; i < l.size(); ++i) {
    int c = py_compare(key(l[i]), key(l[best]));
    if (want_max ? c > 0 : c < 0) best = i;
  }
  return l[best];
}
Value f_max(const Value& v, const CallArgs& a) { return extreme(v, a, true); }
Value f_min(const Value& v, const CallArgs& a) { return extreme(v, a, false); }
// Python's round(x, n): the nearest value with n decimals, ties to even, on the double's exact value (so 2.675
// rounds to 2.67: it is 2.67499999...). glibc's printf rounds exactly that way; an integer stays an integer.
Value round_half_even(const Value& v, long long precision) {
  if (v.is_number_integer()) {
    if (precision >= 0) return v;
    if (precision < -18) return 0;
    long long unit = 1;
    for (long long i = 0; i < -precision; ++i) unit *= 10;
    long long x = v.get<long long>(), q = x / unit, r = x % unit;
    if (r < 0) r += unit, --q;  // floor division
    if (2 * r > unit || (2 * r == unit && q % 2 != 0)) ++q;
    return q * unit;  // cannot overflow: |q * unit| <= |x| + unit / 2 rounded to a multiple of unit
  }
  double x = v.get<double>();
  if (!std::isfinite(x) || precision > 340) return x;
  if (precision < 0) {
    double unit = std::pow(10.0, static_cast<double>(-precision));
    return std::nearbyint(x / unit) * unit;
  }
  char buf[700];
  std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(precision), x);
  return std::strtod(buf, nullptr);
}

Value f_round(const Value& v, const CallArgs& a) {
  if (!v.is_number()) fail("round expects a number, got " + type_name(v));
  long long precision = need_int(a.get(0, "precision"), 0, "round");
  std::string method = a.get(1, "method") ? py_str(*a.get(1, "method")) : "common";
  if (method == "common") return round_half_even(v, precision);
  double scale = std::pow(10.0, static_cast<double>(precision));
  double x = v.get<double>() * scale;
  if (method == "ceil") x = std::ceil(x);
  else if (method == "floor") x = std::floor(x);
  else fail("round's method must be 'common', 'ceil' or 'floor'");
  return x / scale;
}
Value f_items(const Value& v, const CallArgs&) {
  Value out = Value::array();
  if (v.is_null()) return out;
  if (!v.is_object()) fail("items expects a mapping, got " + type_name(v));
  for (const auto& [k, e] : v.items()) out.push_back(Value::array({key_of(k), e}));
  return out;
}
Value f_dictsort(const Value& v, const CallArgs& a) {
  if (!v.is_object()) fail("dictsort expects a mapping, got " + type_name(v));
  bool case_sensitive = arg_bool(a.get(0, "case_sensitive"), false);
  std::string by = a.get(1, "by") ? py_str(*a.get(1, "by")) : "key";
  if (by != "key" && by != "value") fail("you can only sort by either \"key\" or \"value\"");
  bool reverse = arg_bool(a.get(2, "reverse"), false);
  Value items = f_items(v, a);
  size_t idx = by == "value" ? 1 : 0;
  auto key = [&](const Value& e) {
    Value k = e[idx];
    if (!case_sensitive && k.is_string()) k = lower(k.get<std::string>());
    return k;
  };
  std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
    return reverse ? py_compare(key(y), key(x)) < 0 : py_compare(key(x), key(y)) < 0;
  });
  return items;
}
Value f_truncate(const Value& v, const CallArgs& a) {
  std::string s = py_str(v);
  size_t length = static_cast<size_t>(need_int(a.get(0, "length"), 255, "truncate"));
  bool killwords = arg_bool(a.get(1, "killwords"), false);
  std::string end = a.get(2, "end") ? py_str(*a.get(2, "end")) : "...";
  size_t leeway = static_cast<size_t>(need_int(a.get(3, "leeway"), 5, "truncate"));
  if (s.size() <= length + leeway) return s;
  size_t keep = length >= end.size() ? length - end.size() : 0;
  std::string head = s.substr(0, keep);
  if (!killwords) {
    size_t sp = head.rfind(' ');
    if (sp != std::string::npos) head.resize(sp);
  }
  return head + end;
}
Value f_wordcount(const Value& v, const CallArgs&) {
  std::string s = py_str(v);
  size_t n = 0;
  bool in_word = false;
  for (unsigned char c : s) {
    bool w = std::isalnum(c) || c == '_' || c >= 0x80;
    if (w && !in_word) ++n;
    in_word = w;
  }
  return n;
}
Value f_center(const Value& v, const CallArgs& a) {
  std::string s = py_str(v);
  size_t width = need_width(a.get(0, "width"), 80, "center");
  size_t len = character_count(s);
  if (len >= width) return s;
  size_t total = width - len, left = total / 2 + (total & width & 1);
  return std::string(left, ' ') + s + std::string(total - left, ' ');
}
Value f_batch(const Value& v, const CallArgs& a) {
  long long n = static_cast<long long>(need_width(a.get(0, "linecount"), 1, "batch"));
  if (n <= 0) fail("batch expects a positive size");
  const Value* fill = a.get(1, "fill_with");
  Value out = Value::array(), cur = Value::array();
  for (const auto& e : as_list(v)) {
    cur.push_back(e);
    if (static_cast<long long>(cur.size()) == n) out.push_back(std::move(cur)), cur = Value::array();
  }
  if (!cur.empty()) {
    if (fill)
      while (static_cast<long long>(cur.size()) < n) cur.push_back(*fill);
    out.push_back(std::move(cur));
  }
  return out;
}

// HTML-escapes as markupsafe does. Without autoescaping there is no Markup type, so escaping twice escapes twice.
Value f_escape(const Value& v, const CallArgs&) { return html_escaped(py_str(v)); }
Value f_safe(const Value& v, const CallArgs&) { return v; }

// printf-style formatting, as Python's "%s" % args: s r d i f F e g x X o c and %%, flags, width, precision.
Value f_format(const Value& v, const CallArgs& a) {
  const std::string& fmt = need_string(v, "format");
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i >= fmt.size()) fail("format: incomplete format");
    if (fmt[i] == '%') {
      out += '%';
      continue;
    }
    const Value* arg = nullptr;
    if (fmt[i] == '(') {  // %(name)s takes keyword arguments
      size_t close = fmt.find(')', i);
      if (close == std::string::npos) fail("format: incomplete format key");
      arg = a.get(SIZE_MAX, fmt.substr(i + 1, close - i - 1));
      if (!arg) fail("format: no argument named '" + fmt.substr(i + 1, close - i - 1) + "'");
      i = close + 1;
    }
    std::string spec = "%";
    while (i < fmt.size() && std::string("-+ #0").find(fmt[i]) != std::string::npos) spec += fmt[i++];
    while (i < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[i])) || fmt[i] == '.')) spec += fmt[i++];
    if (i >= fmt.size()) fail("format: incomplete format");
    // Python pads to any width; the engine's numbers are formatted in a 512-byte buffer, so width and precision
    // are held well inside it rather than cut silently.
    for (size_t at = 1, n = 0; at <= spec.size(); ++at) {
      if (at < spec.size() && std::isdigit(static_cast<unsigned char>(spec[at]))) {
        n = std::min<size_t>(n * 10 + static_cast<size_t>(spec[at] - '0'), 100000);
        continue;
      }
      if (n > limits::kFormatWidth)
        fail("a width or precision of " + std::to_string(n) + " is past the limit of " + std::to_string(limits::kFormatWidth));
      n = 0;
    }
    char conv = fmt[i];
    if (!arg) {
      if (next >= a.positional.size()) fail("format: not enough arguments for format string");
      arg = &a.positional[next++];
    }
    char buf[512];
    switch (conv) {
      case 's':
      case 'r': {
        std::string text = conv == 's' ? py_str(*arg) : py_repr(*arg);
        if (spec == "%") {
          out += text;
          break;
        }
        // Width and precision count characters, as Python's do, and a long text is never cut to the buffer.
        size_t dot = spec.find('.');
        if (dot != std::string::npos) {
          text.resize(utf8::offset(text, static_cast<size_t>(std::atoi(spec.c_str() + dot + 1))));
        }
        size_t digits = spec.find_first_of("123456789");
        size_t width = digits != std::string::npos && digits < dot ? static_cast<size_t>(std::atoi(spec.c_str() + digits)) : 0;
        size_t len = character_count(text);
        std::string pad = width > len ? std::string(width - len, ' ') : "";
        out += spec.find('-') != std::string::npos ? text + pad : pad + text;
        break;
      }
      case 'd':
      case 'i':
      case 'x':
      case 'X':
      case 'o': {
        if (!arg->is_number() && !arg->is_boolean()) fail("format: %" + std::string(1, conv) + " format: a number is required");
        long long n = arg->is_boolean() ? arg->get<bool>() : static_cast<long long>(arg->get<double>());
        if (arg->is_number_integer()) n = arg->get<long long>();
        std::snprintf(buf, sizeof buf, (spec + "ll" + (conv == 'i' ? 'd' : conv)).c_str(), n);
        out += buf;
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G': {
        if (!arg->is_number() && !arg->is_boolean()) fail("format: a number is required");
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), arg->is_boolean() ? double(arg->get<bool>()) : arg->get<double>());
        out += buf;
        break;
      }
      case 'c': out += arg->is_string() ? arg->get<std::string>() : std::string(1, static_cast<char>(arg->get<long long>())); break;
      default: fail(std::string("format: unsupported format character '") + conv + "'");
    }
  }
  if (next < a.positional.size() && a.keyword.empty())
    fail("format: not all arguments converted during string formatting");
  return out;
}

// groupby: sorted by the attribute, then grouped; each group is [grouper, list] (g.grouper and g.list work too).
Value f_groupby(const Value& v, const CallArgs& a) {
  const Value* attr = a.get(0, "attribute");
  if (!attr) fail("groupby expects an attribute");
  const Value* dflt = a.get(1, "default");
  bool case_sensitive = arg_bool(a.get(2, "case_sensitive"), false);
  std::string path = py_str(*attr);
  auto key = [&](const Value& e) -> Value {
    const Value* k = get_attribute(e, path);
    if (!k && !dflt) fail("groupby: an item has no attribute '" + path + "'");
    Value r = k ? *k : *dflt;
    if (!case_sensitive && r.is_string()) r = lower(r.get<std::string>());
    return r;
  };
  Value items = as_list(v);
  std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) { return py_compare(key(x), key(y)) < 0; });
  Value out = Value::array();
  for (const auto& e : items) {
    Value k = key(e);
    if (out.empty() || !py_equal(out.back()[0], k)) {
      const Value* original = get_attribute(e, path);
      out.push_back(Value::array({case_sensitive || !original ? k : *original, Value::array()}));
    }
    out.back()[1].push_back(e);
  }
  return out;
}

// slice: n columns, the first ones one longer when the items do not divide evenly (Jinja2's algorithm).
Value f_slice(const Value& v, const CallArgs& a) {
  long long n = need_int(a.get(0, "slices"), 1, "slice");
  if (n <= 0) fail("slice expects a positive number of slices");
  const Value* fill = a.get(1, "fill_with");
  Value items = as_list(v);
  size_t len = items.size(), per = len / static_cast<size_t>(n), extra = len % static_cast<size_t>(n), offset = 0;
  Value out = Value::array();
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    size_t start = offset + i * per;
    if (i < extra) offset += 1;
    size_t end = offset + (i + 1) * per;
    Value col = Value::array();
    for (size_t j = start; j < end && j < len; ++j) col.push_back(items[j]);
    if (fill && i >= extra) col.push_back(*fill);
    out.push_back(std::move(col));
  }
  return out;
}

// wordwrap: each line wrapped greedily at spaces to `width`; words longer than the width are broken.
Value f_wordwrap(const Value& v, const CallArgs& a) {
  size_t width = need_width(a.get(0, "width"), 79, "wordwrap");
  if (width == 0) fail("wordwrap expects a positive width");
  bool break_long = arg_bool(a.get(1, "break_long_words"), true);
  std::string wrap = a.get(2, "wrapstring") && !a.get(2, "wrapstring")->is_null() ? py_str(*a.get(2, "wrapstring")) : "\n";
  std::string s = py_str(v), out;
  size_t start = 0;
  bool first_line = true;
  while (start <= s.size()) {
    size_t nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    std::vector<std::string> wrapped;
    std::string cur;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && line[i] == ' ') ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ') ++j;
      std::string word = line.substr(i, j - i);
      i = j;
      if (word.empty()) break;
      while (break_long && word.size() > width) {
        if (!cur.empty()) wrapped.push_back(cur), cur.clear();
        wrapped.push_back(word.substr(0, width));
        word.erase(0, width);
      }
      if (cur.empty()) cur = word;
      else if (cur.size() + 1 + word.size() <= width) cur += " " + word;
      else wrapped.push_back(cur), cur = word;
    }
    if (!cur.empty()) wrapped.push_back(cur);
    if (!first_line) out += wrap;
    first_line = false;
    for (size_t k = 0; k < wrapped.size(); ++k) out += (k ? wrap : "") + wrapped[k];
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// ---- tests ----

bool is_int(const Value& v) { return v.is_number_integer() || v.is_number_unsigned(); }
bool t_none(const Value& v, const CallArgs&) { return v.is_null(); }
bool t_boolean(const Value& v, const CallArgs&) { return v.is_boolean(); }
bool t_true(const Value& v, const CallArgs&) { return v.is_boolean() && v.get<bool>(); }
bool t_false(const Value& v, const CallArgs&) { return v.is_boolean() && !v.get<bool>(); }
bool t_number(const Value& v, const CallArgs&) { return v.is_number() || v.is_boolean(); }
bool t_integer(const Value& v, const CallArgs&) { return is_int(v); }
bool t_float(const Value& v, const CallArgs&) { return v.is_number_float(); }
bool t_string(const Value& v, const CallArgs&) { return v.is_string(); }
bool t_mapping(const Value& v, const CallArgs&) { return v.is_object(); }
bool t_sequence(const Value& v, const CallArgs&) { return v.is_array() || v.is_string() || v.is_object(); }
bool t_callable(const Value&, const CallArgs&) { return false; }
bool t_even(const Value& v, const CallArgs&) { return is_int(v) && v.get<long long>() % 2 == 0; }
bool t_odd(const Value& v, const CallArgs&) { return is_int(v) && v.get<long long>() % 2 != 0; }
bool t_divisibleby(const Value& v, const CallArgs& a) {
  long long d = need_int(a.get(0, "num"), 1, "divisibleby");
  if (d == 0) fail("divisibleby: division by zero");
  return need_int(&v, 0, "divisibleby") % d == 0;
}
const Value& other(const CallArgs& a) {
  const Value* o = a.get(0, "other");
  if (!o) fail("the test expects a value to compare with");
  return *o;
}
bool t_eq(const Value& v, const CallArgs& a) { return py_equal(v, other(a)); }
bool t_ne(const Value& v, const CallArgs& a) { return !py_equal(v, other(a)); }
bool t_lt(const Value& v, const CallArgs& a) { return py_compare(v, other(a)) < 0; }
bool t_le(const Value& v, const CallArgs& a) { return py_compare(v, other(a)) <= 0; }
bool t_gt(const Value& v, const CallArgs& a) { return py_compare(v, other(a)) > 0; }
bool t_ge(const Value& v, const CallArgs& a) { return py_compare(v, other(a)) >= 0; }
// Python's `is`: None, True and False are one object each, and CPython keeps one object per integer from -5 to 256.
bool t_sameas(const Value& v, const CallArgs& a) {
  const Value& o = other(a);
  if (v.is_number_integer() && o.is_number_integer() && !v.is_number_unsigned() && !o.is_number_unsigned()) {
    long long x = v.get<long long>();
    return x == o.get<long long>() && x >= -5 && x <= 256;
  }
  return v == o && (v.is_null() || v.is_boolean());
}
// str.islower() / str.isupper(): at least one cased character, and none of the other case.
bool has_case(const Value& v, bool upper_case) {
  if (!v.is_string()) return false;
  bool cased = false;
  for (const CodePoint& c : code_points(v.get_ref<const std::string&>())) {
    if (upper_case ? char_is_lower(c.cp) : char_is_upper(c.cp)) return false;
    cased = cased || (upper_case ? char_is_upper(c.cp) : char_is_lower(c.cp));
  }
  return cased;
}
bool t_lower(const Value& v, const CallArgs&) { return has_case(v, false); }
bool t_upper(const Value& v, const CallArgs&) { return has_case(v, true); }
bool t_iterable(const Value& v, const CallArgs&) { return v.is_array() || v.is_object() || v.is_string(); }
// Only Jinja2's Markup is "escaped"; the renderer knows which values are, so a value reaching here (select's
// test) is plain.
bool t_escaped(const Value&, const CallArgs&) { return false; }
// The renderer answers default, defined and undefined itself: they see undefined values.
bool t_filter(const Value& v, const CallArgs&) {
  if (!v.is_string()) return false;
  const std::string& n = v.get_ref<const std::string&>();
  return n == "default" || n == "d" || find_filter(n) != nullptr;
}
bool t_test(const Value& v, const CallArgs&) {
  if (!v.is_string()) return false;
  const std::string& n = v.get_ref<const std::string&>();
  return n == "defined" || n == "undefined" || find_test(n) != nullptr;
}

}  // namespace

bool value_in(const Value& needle, const Value& haystack);

namespace {
bool t_in(const Value& v, const CallArgs& a) { return value_in(v, other(a)); }

// select/reject and their attr forms need a test by name; map needs a filter by name.
Value select_impl(const Value& v, const CallArgs& a, bool by_attr, bool keep) {
  Value out = Value::array();
  size_t first = by_attr ? 1 : 0;
  std::string attr = by_attr ? (a.get(0, "attribute") ? py_str(*a.get(0, "attribute")) : "") : "";
  if (by_attr && attr.empty()) fail("selectattr/rejectattr expect an attribute name");
  TestFn test = nullptr;
  CallArgs rest;
  int defined_test = 0;  // 1: `defined`, -1: `undefined`; they ask whether the item has the attribute
  if (a.positional.size() > first) {
    std::string name = py_str(a.positional[first]);
    defined_test = name == "defined" ? 1 : name == "undefined" ? -1 : 0;
    test = find_test(name);
    if (!test && !defined_test) fail("no test named '" + name + "'");
    rest.positional.assign(a.positional.begin() + static_cast<long>(first) + 1, a.positional.end());
  }
  if (!truthy(v)) return out;  // Jinja2's `if seq:`: none, 0, false and empty give nothing, not an error
  for (const auto& e : as_list(v)) {
    const Value* x = by_attr ? get_attribute(e, attr) : &e;
    bool ok = defined_test ? (x != nullptr) == (defined_test > 0) : x && (test ? test(*x, rest) : truthy(*x));
    if (ok == keep) out.push_back(e);
  }
  return out;
}
Value f_select(const Value& v, const CallArgs& a) { return select_impl(v, a, false, true); }
Value f_reject(const Value& v, const CallArgs& a) { return select_impl(v, a, false, false); }
Value f_selectattr(const Value& v, const CallArgs& a) { return select_impl(v, a, true, true); }
Value f_rejectattr(const Value& v, const CallArgs& a) { return select_impl(v, a, true, false); }
Value f_map(const Value& v, const CallArgs& a) {
  Value out = Value::array();
  if (!truthy(v)) return out;  // as select: Jinja2 maps over `seq` only `if seq:`
  if (const Value* attr = a.get(99, "attribute")) {
    const Value* dflt = a.get(99, "default");
    std::string path = py_str(*attr);
    for (const auto& e : as_list(v)) {
      const Value* x = get_attribute(e, path);
      if (!x && !dflt) fail("map: an item has no attribute '" + path + "'");
      out.push_back(x ? *x : *dflt);
    }
    return out;
  }
  if (a.positional.empty()) fail("map expects a filter name or attribute=");
  std::string name = py_str(a.positional[0]);
  FilterFn f = find_filter(name);
  if (!f) fail("no filter named '" + name + "'");
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keyword = a.keyword;
  for (const auto& e : as_list(v)) out.push_back(f(e, rest));
  return out;
}
Value f_attr(const Value& v, const CallArgs& a) {
  const Value* name = a.get(0, "name");
  if (!name) fail("attr expects a name");
  const Value* x = v.is_object() ? get_attribute(v, py_str(*name)) : nullptr;
  return x ? *x : Value();
}

const std::map<std::string, FilterFn, std::less<>>& filters() {
  static const std::map<std::string, FilterFn, std::less<>> table = {
      {"filesizeformat", f_filesizeformat}, {"striptags", f_striptags}, {"urlencode", f_urlencode},
      {"xmlattr", f_xmlattr}, {"pprint", f_pprint},     {"forceescape", f_escape},
      {"abs", f_abs},         {"attr", f_attr},         {"batch", f_batch},       {"capitalize", f_capitalize},
      {"center", f_center},   {"count", f_length},      {"dictsort", f_dictsort}, {"e", f_escape},         {"escape", f_escape},     {"format", f_format},
      {"groupby", f_groupby},   {"safe", f_safe},         {"slice", f_slice},       {"wordwrap", f_wordwrap}, {"first", f_first},
      {"float", f_float},     {"indent", f_indent},     {"int", f_int},           {"items", f_items},
      {"join", f_join},       {"last", f_last},         {"length", f_length},     {"list", f_list},
      {"lower", f_lower},     {"map", f_map},           {"max", f_max},           {"min", f_min},
      {"reject", f_reject},   {"rejectattr", f_rejectattr}, {"replace", f_replace}, {"reverse", f_reverse},
      {"round", f_round},     {"select", f_select},     {"selectattr", f_selectattr}, {"sort", f_sort},
      {"string", f_string},   {"sum", f_sum},           {"title", f_title},       {"tojson", f_tojson},    {"fromjson", f_fromjson},
      {"trim", f_trim},       {"truncate", f_truncate}, {"unique", f_unique},     {"upper", f_upper},
      {"wordcount", f_wordcount},
  };
  return table;
}

const std::map<std::string, TestFn, std::less<>>& tests() {
  static const std::map<std::string, TestFn, std::less<>> table = {
      {"boolean", t_boolean}, {"callable", t_callable}, {"divisibleby", t_divisibleby}, {"eq", t_eq},
      {"equalto", t_eq},      {"==", t_eq},             {"even", t_even},       {"false", t_false},
      {"float", t_float},     {"ge", t_ge},             {"gt", t_gt},           {"greaterthan", t_gt},
      {"in", t_in},           {"integer", t_integer},   {"iterable", t_iterable}, {"le", t_le},
      {"lower", t_lower},     {"lt", t_lt},             {"lessthan", t_lt},     {"mapping", t_mapping},
      {"ne", t_ne},           {"none", t_none},         {"number", t_number},   {"odd", t_odd},
      {"sameas", t_sameas},   {"sequence", t_sequence}, {"string", t_string},   {"true", t_true},
      {"upper", t_upper},     {"escaped", t_escaped},   {"filter", t_filter},   {"test", t_test},
      {"!=", t_ne},           {"<", t_lt},              {"<=", t_le},           {">", t_gt},
      {">=", t_ge},
  };
  return table;
}

template <class Map>
std::vector<std::string> keys_of(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [k, _] : m) out.push_back(k);
  return out;
}

}  // namespace

bool value_in(const Value& needle, const Value& haystack) {
  if (haystack.is_string()) {
    if (!needle.is_string()) fail("'in <string>' requires string as left operand, not " + type_name(needle));
    return haystack.get_ref<const std::string&>().find(needle.get_ref<const std::string&>()) != std::string::npos;
  }
  if (haystack.is_object()) return !needle.is_structured() && haystack.contains(dict_key(needle));
  if (haystack.is_array())
    return std::any_of(haystack.begin(), haystack.end(), [&](const Value& e) { return py_equal(e, needle); });
  fail("argument of type '" + type_name(haystack) + "' is not iterable");
}

FilterFn find_filter(std::string_view name) {
  auto it = filters().find(name);
  return it == filters().end() ? nullptr : it->second;
}
TestFn find_test(std::string_view name) {
  auto it = tests().find(name);
  return it == tests().end() ? nullptr : it->second;
}
const std::vector<std::string>& filter_names() {
  static const std::vector<std::string> names = [] {
    auto v = keys_of(filters());
    v.insert(v.end(), {"default", "d"});
    return v;
  }();
  return names;
}
const std::vector<std::string>& test_names() {
  static const std::vector<std::string> names = [] {
    auto v = keys_of(tests());
    v.insert(v.end(), {"defined", "undefined"});
    return v;
  }();
  return names;
}

Value call_method(const Value& obj, std::string_view name, const CallArgs& a) {
  if (obj.is_object()) {
    if (name == "items") return f_items(obj, a);
    if (name == "keys") return as_list(obj);
    if (name == "values") {
      Value out = Value::array();
      for (const auto& [_, v] : obj.items()) out.push_back(v);
      return out;
    }
    if (name == "get") {
      const Value* key = a.get(0, "key");
      if (!key) fail("get expects a key");
      auto it = key->is_structured() ? obj.end() : obj.find(dict_key(*key));
      if (it != obj.end()) return *it;
      const Value* d = a.get(1, "default");
      return d ? *d : Value();
    }
  }
  if (obj.is_object() && name == "copy") return obj;
  if (obj.is_object() && (name == "pop" || name == "popitem" || name == "update" || name == "setdefault" ||
                          name == "clear"))
    fail("dict." + std::string(name) + "() changes the dict, which templates may not do (as in Jinja2's sandbox); "
         "build a new one with dict(), | items or a namespace");
  if (obj.is_array()) {  // the methods that leave a list as it is (Jinja2's sandbox refuses the others)
    if (name == "copy") return obj;
    if (name == "count" || name == "index") {
      const Value* x = a.get(0, "value");
      if (!x) fail(std::string(name) + " expects a value");
      long long n = 0;
      // list.index(x, start, end), the bounds as Python reads a slice's
      long long size = static_cast<long long>(obj.size());
      auto bound = [&](const Value* b, long long dflt) {
        long long i = need_int(b, dflt, "index");
        if (i < 0) i += size;
        return std::clamp<long long>(i, 0, size);
      };
      size_t from = name == "index" ? static_cast<size_t>(bound(a.get(1, "start"), 0)) : 0;
      size_t to = name == "index" ? static_cast<size_t>(bound(a.get(2, "end"), size)) : obj.size();
      for (size_t i = from; i < to; ++i)
        if (py_equal(obj[i], *x)) {
          if (name == "index") return static_cast<long long>(i);
          ++n;
        }
      if (name == "index") fail(py_repr(*x) + " is not in list");
      return n;
    }
    if (name == "append" || name == "extend" || name == "pop" || name == "insert" || name == "remove" ||
        name == "clear" || name == "sort" || name == "reverse")
      fail("list." + std::string(name) + "() changes the list, which templates may not do (as in Jinja2's "
           "sandbox); build a new list with filters or +");
  }
  if (obj.is_string()) {
    const std::string& s = obj.get_ref<const std::string&>();
    if (name == "upper") return upper(s);
    if (name == "lower") return lower(s);
    if (name == "strip") return strip_chars(s, a.get(0, "chars"), true, true);
    if (name == "lstrip") return strip_chars(s, a.get(0, "chars"), true, false);
    if (name == "rstrip") return strip_chars(s, a.get(0, "chars"), false, true);
    if (name == "title") {  // str.title: a word starts after any character that is not a cased letter
      std::string out;
      bool after_cased = false;
      for (const CodePoint& c : code_points(s)) {
        bool cased = c.valid && (char_is_upper(c.cp) || char_is_lower(c.cp));
        out += !cased ? std::string(c.bytes) : after_cased ? to_lower(c.bytes) : to_upper(c.bytes);
        after_cased = cased;
      }
      return out;
    }
    if (name == "capitalize") return f_capitalize(obj, a);
    if (name == "startswith" || name == "endswith") {
      const Value* p = a.get(0, "prefix");
      if (!p) fail(std::string(name) + " expects an argument");
      auto check = [&](const std::string& x) {
        return name == "startswith" ? s.compare(0, x.size(), x) == 0
                                    : s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
      };
      if (p->is_array()) return std::any_of(p->begin(), p->end(), [&](const Value& x) { return check(py_str(x)); });
      return check(need_string(*p, std::string(name).c_str()));
    }
    if (name == "replace") {
      const Value* from = a.get(0, "old");
      const Value* to = a.get(1, "new");
      if (!from || !to) fail("replace expects two arguments");
      return replace_all(s, py_str(*from), py_str(*to), need_int(a.get(2, "count"), -1, "replace"));
    }
    if (name == "split") {
      Value out = Value::array();
      const Value* sep = a.get(0, "sep");
      long long maxsplit = need_int(a.get(1, "maxsplit"), -1, "split");
      if (!sep || sep->is_null()) {  // whitespace split drops empty parts
        size_t i = 0;
        long long done = 0;
        while (i < s.size()) {
          while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
          if (i >= s.size()) break;
          if (maxsplit >= 0 && done >= maxsplit) {
            out.push_back(strip_chars(s.substr(i), nullptr, false, true));
            break;
          }
          size_t j = i;
          while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
          out.push_back(s.substr(i, j - i));
          ++done;
          i = j;
        }
        return out;
      }
      std::string d = need_string(*sep, "split");
      if (d.empty()) fail("empty separator");
      size_t pos = 0;
      long long done = 0;
      for (;;) {
        size_t hit = s.find(d, pos);
        if (hit == std::string::npos || (maxsplit >= 0 && done >= maxsplit)) break;
        out.push_back(s.substr(pos, hit - pos));
        pos = hit + d.size();
        ++done;
      }
      out.push_back(s.substr(pos));
      return out;
    }
    if (name == "join") {
      const Value* items = a.get(0, "iterable");
      if (!items) fail("join expects an iterable");
      std::string out;
      bool first = true;
      for (const auto& e : as_list(*items)) {
        if (!first) out += s;
        first = false;
        out += need_string(e, "str.join");
      }
      return out;
    }
    if (auto more = call_str_method(s, name, a)) return std::move(*more);
  }
  fail("'" + type_name(obj) + "' object has no method '" + std::string(name) + "'");
}

}  // namespace engine::tmpl
