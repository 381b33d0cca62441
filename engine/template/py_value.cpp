#include "engine/template/py_value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace engine::tmpl {

bool truthy(const Value& v) {
  switch (v.type()) {
    case Value::value_t::null: return false;
    case Value::value_t::boolean: return v.get<bool>();
    case Value::value_t::number_integer: return v.get<long long>() != 0;
    case Value::value_t::number_unsigned: return v.get<unsigned long long>() != 0;
    case Value::value_t::number_float: return v.get<double>() != 0.0;
    case Value::value_t::string: return !v.get_ref<const std::string&>().empty();
    case Value::value_t::array:
    case Value::value_t::object: return !v.empty();
    default: return false;
  }
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // "-1.2345e+02"
  std::string sign;
  if (sci.front() == '-') sign = "-", sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exp = std::stoi(std::string(sci.substr(e + 1)));
  int decpt = exp + 1;
  // Python switches to exponent notation outside 1e-4 <= |x| < 1e16.
  if (decpt <= -4 || decpt > 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + ebuf;
  }
  int n = static_cast<int>(digits.size());
  if (decpt <= 0) return sign + "0." + std::string(-decpt, '0') + digits;
  if (decpt >= n) return sign + digits + std::string(decpt - n, '0') + ".0";
  return sign + digits.substr(0, decpt) + "." + digits.substr(decpt);
}

std::string dict_key(const Value& key) {
  if (key.is_string()) return key.get<std::string>();
  std::string out = "\xFF";
  if (key.is_boolean()) return out + "b" + (key.get<bool>() ? "True" : "False");
  if (key.is_null()) return out + "n";
  if (key.is_number_integer()) return out + "i" + key.dump();
  if (key.is_number_float()) return out + "f" + float_repr(key.get<double>());
  throw BuiltinError{"unhashable type: '" + type_name(key) + "'"};  // a list or a dict, as Python says
}

Value key_of(const std::string& k) {
  if (!is_typed_key(k) || k.size() < 2) return k;
  std::string_view rest = std::string_view(k).substr(2);
  switch (k[1]) {
    case 'b': return rest == "True";
    case 'n': return nullptr;
    case 'i': {
      long long n = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
      if (ec == std::errc() && end == rest.data() + rest.size()) return n;
      unsigned long long u = 0;
      auto [uend, uec] = std::from_chars(rest.data(), rest.data() + rest.size(), u);
      if (uec == std::errc() && uend == rest.data() + rest.size()) return u;
      return k;
    }
    case 'f': return std::strtod(std::string(rest).c_str(), nullptr);
    default: return k;
  }
}

namespace {
// json.dumps's text for a key: a number's repr, true, false, null.
std::string json_key_text(const std::string& k) {
  if (!is_typed_key(k)) return k;
  Value key = key_of(k);
  if (key.is_boolean()) return key.get<bool>() ? "true" : "false";
  if (key.is_null()) return "null";
  return py_str(key);
}
}  // namespace

void make_keys_text(Value& v) {
  if (!v.is_structured()) return;
  bool typed = false;
  for (auto& [k, e] : v.items()) {  // an array's items() gives its elements (keys are their indices)
    typed = typed || (v.is_object() && is_typed_key(k));
    make_keys_text(e);
  }
  if (!typed) return;  // nothing moves: a value that never held a typed key passes through as it is
  Value out = Value::object();
  for (auto& [k, e] : v.items()) out[json_key_text(k)] = std::move(e);
  v = std::move(out);
}

namespace {

void append_repr_string(std::string& out, const std::string& s) {
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  out += q;
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == static_cast<unsigned char>(q)) out += '\\', out += q;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else out += static_cast<char>(c);
  }
  out += q;
}

void append_repr(std::string& out, const Value& v) {
  if (v.is_string()) return append_repr_string(out, v.get_ref<const std::string&>());
  if (v.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ", ";
      first = false;
      append_repr(out, e);
    }
    out += ']';
    return;
  }
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [k, e] : v.items()) {
      if (!first) out += ", ";
      first = false;
      if (is_typed_key(k)) append_repr(out, key_of(k));
      else append_repr_string(out, k);
      out += ": ";
      append_repr(out, e);
    }
    out += '}';
    return;
  }
  append_py_str(out, v);
}

void append_json_string(std::string& out, const std::string& s, bool plain = false) {
  out += '"';
  char b[16];
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    uint32_t cp = c;
    size_t n = 1;
    if (c >= 0x80 && plain) {  // ensure_ascii=False: non-ASCII as it is
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c >= 0x80) {  // decode UTF-8 so non-ASCII is written as \uXXXX, as json.dumps(ensure_ascii=True)
      n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
      cp = c & (0xFF >> (n + 1));
      for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    i += n;
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
    }
    if (!plain) {
      switch (cp) {  // Jinja2's htmlsafe_json_dumps
        case '<': out += "\\u003c"; continue;
        case '>': out += "\\u003e"; continue;
        case '&': out += "\\u0026"; continue;
        case '\'': out += "\\u0027"; continue;
      }
    }
    if (cp < 0x20 || (cp >= 0x7f && cp < 0x10000)) {
      std::snprintf(b, sizeof b, "\\u%04x", cp);
      out += b;
    } else if (cp >= 0x10000) {
      cp -= 0x10000;
      std::snprintf(b, sizeof b, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
      out += b;
    } else {
      out += static_cast<char>(cp);
    }
  }
  out += '"';
}

void append_json(std::string& out, const Value& v, int indent, bool sort_keys, int level, bool plain = false) {
  auto newline = [&](int lvl) {
    out += '\n';
    out.append(static_cast<size_t>(indent * lvl), ' ');
  };
  const char* item_sep = indent >= 0 ? "," : ", ";
  switch (v.type()) {
    case Value::value_t::null: out += "null"; return;
    case Value::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return;
    case Value::value_t::number_float: {
      double d = v.get<double>();
      out += std::isnan(d) ? "NaN" : std::isinf(d) ? (d < 0 ? "-Infinity" : "Infinity") : float_repr(d);
      return;
    }
    case Value::value_t::string: append_json_string(out, v.get_ref<const std::string&>(), plain); return;
    case Value::value_t::array: {
      if (v.empty()) { out += "[]"; return; }
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += item_sep;
        first = false;
        if (indent >= 0) newline(level + 1);
        append_json(out, e, indent, sort_keys, level + 1, plain);
      }
      if (indent >= 0) newline(level);
      out += ']';
      return;
    }
    case Value::value_t::object: {
      if (v.empty()) { out += "{}"; return; }
      std::vector<std::pair<const std::string*, const Value*>> items;
      for (const auto& [k, e] : v.items()) items.emplace_back(&k, &e);
      if (sort_keys)  // json.dumps sorts keys as Python orders them: integers by value
        std::stable_sort(items.begin(), items.end(), [](auto& a, auto& b) {
          if (is_typed_key(*a.first) || is_typed_key(*b.first)) {
            Value x = key_of(*a.first), y = key_of(*b.first);
            if ((x.is_number() || x.is_boolean()) && (y.is_number() || y.is_boolean())) return py_compare(x, y) < 0;
          }
          return *a.first < *b.first;
        });
      out += '{';
      bool first = true;
      for (const auto& [k, e] : items) {
        if (!first) out += item_sep;
        first = false;
        if (indent >= 0) newline(level + 1);
        append_json_string(out, json_key_text(*k), plain);
        out += ": ";
        append_json(out, *e, indent, sort_keys, level + 1, plain);
      }
      if (indent >= 0) newline(level);
      out += '}';
      return;
    }
    default: out += v.dump(); return;
  }
}

int type_rank(const Value& v) {
  if (v.is_boolean() || v.is_number()) return 0;
  if (v.is_string()) return 1;
  if (v.is_array()) return 2;
  return 3;
}

double as_double(const Value& v) { return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>(); }
// Python compares an int with a float exactly; a long double holds every 64-bit integer and every double, so
// 2^53 + 1 is not taken for 2^53.0.
long double as_exact(const Value& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_unsigned()) return static_cast<long double>(v.get<unsigned long long>());
  if (v.is_number_integer()) return static_cast<long double>(v.get<long long>());
  return v.get<double>();
}

}  // namespace

void append_py_str(std::string& out, const Value& v) {
  switch (v.type()) {
    case Value::value_t::null: out += "None"; return;
    case Value::value_t::boolean: out += v.get<bool>() ? "True" : "False"; return;
    case Value::value_t::number_integer: out += std::to_string(v.get<long long>()); return;
    case Value::value_t::number_unsigned: out += std::to_string(v.get<unsigned long long>()); return;
    case Value::value_t::number_float: out += float_repr(v.get<double>()); return;
    case Value::value_t::string: out += v.get_ref<const std::string&>(); return;
    case Value::value_t::array:
    case Value::value_t::object: append_repr(out, v); return;
    default: return;
  }
}

std::string py_str(const Value& v) {
  std::string out;
  append_py_str(out, v);
  return out;
}

std::string py_repr(const Value& v) {
  std::string out;
  append_repr(out, v);
  return out;
}

std::string type_name(const Value& v) {
  switch (v.type()) {
    case Value::value_t::null: return "NoneType";
    case Value::value_t::boolean: return "bool";
    case Value::value_t::number_integer:
    case Value::value_t::number_unsigned: return "int";
    case Value::value_t::number_float: return "float";
    case Value::value_t::string: return "str";
    case Value::value_t::array: return "list";
    case Value::value_t::object: return "dict";
    default: return "object";
  }
}

std::string tojson(const Value& v, int indent, bool sort_keys) {
  std::string out;
  append_json(out, v, indent, sort_keys, 0);
  return out;
}

std::string plain_json_dumps(const Value& v, int indent) {
  std::string out;
  append_json(out, v, indent, false, 0, true);
  return out;
}

bool py_equal(const Value& a, const Value& b) {
  bool an = a.is_number() || a.is_boolean(), bn = b.is_number() || b.is_boolean();
  if (an && bn) {
    if (a.is_number_float() || b.is_number_float()) return as_exact(a) == as_exact(b);
    if (a.is_boolean() || b.is_boolean()) return as_double(a) == as_double(b);
    return a == b;
  }
  return a == b;
}

int py_compare(const Value& a, const Value& b) {
  int ra = type_rank(a), rb = type_rank(b);
  if (ra != rb || ra == 3)
    throw BuiltinError{"'<' not supported between instances of '" + type_name(a) + "' and '" + type_name(b) + "'"};
  if (ra == 0) {
    if (a.is_number_integer() && b.is_number_integer()) {
      auto x = a.get<long long>(), y = b.get<long long>();
      return x < y ? -1 : x > y;
    }
    long double x = as_exact(a), y = as_exact(b);
    return x < y ? -1 : x > y;
  }
  if (ra == 1) return a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (int c = py_compare(a[i], b[i])) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size();
}

}  // namespace engine::tmpl
