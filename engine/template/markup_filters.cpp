#include "engine/template/markup_filters.h"

#include <cmath>
#include <cstdio>

#include "engine/core/text.h"
#include "engine/template/builtin_args.h"
#include "engine/template/pretty_print.h"

namespace engine::tmpl {
namespace {

using namespace builtin;

// Python's urllib.parse.quote with Jinja2's safe set: letters, digits, "_.-~" and "/" kept, the rest %XX.
std::string url_quote(const std::string& s, bool for_query) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~' || (!for_query && c == '/')) {
      out += static_cast<char>(c);
    } else if (for_query && c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

// 12345 -> "12.3 kB" (binary=true: "12.1 KiB"), as Jinja2: "1 Byte", "N Bytes", then one decimal.
Value f_filesizeformat(const Value& v, const CallArgs& a) {
  double bytes = v.is_number() ? v.get<double>() : std::strtod(py_str(v).c_str(), nullptr);
  bool binary = a.get(0, "binary") && truthy(*a.get(0, "binary"));
  double base = binary ? 1024 : 1000;
  static const char* const kDecimal[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  static const char* const kBinary[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  char buf[64];
  if (bytes == 1) return "1 Byte";
  if (bytes < base) {
    std::snprintf(buf, sizeof buf, "%d Bytes", static_cast<int>(bytes));
    return std::string(buf);
  }
  double unit = base;
  for (int i = 0; i < 8; ++i) {
    unit *= base;
    if (bytes < unit || i == 7) {
      std::snprintf(buf, sizeof buf, "%.1f %s", base * bytes / unit, binary ? kBinary[i] : kDecimal[i]);
      return std::string(buf);
    }
  }
  return std::string(buf);
}

// Tags and comments removed, runs of whitespace made one space, as Jinja2's Markup.striptags (entities are
// left as written: there is no Markup to unescape them into).
Value f_striptags(const Value& v, const CallArgs&) {
  std::string s = py_str(v), text;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 4, "<!--") == 0) {
      size_t end = s.find("-->", i + 4);
      i = end == std::string::npos ? s.size() : end + 3;
    } else if (s[i] == '<') {
      size_t end = s.find('>', i + 1);
      if (end == std::string::npos) {
        text += s.substr(i);
        break;
      }
      i = end + 1;
    } else {
      text += s[i++];
    }
  }
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return decode_xml_entities(out);  // as markupsafe's striptags, which unescapes what is left
}

// A string is quoted for a URL's path; a dict or a list of pairs becomes a query string (a=1&b=x+y).
Value f_urlencode(const Value& v, const CallArgs&) {
  if (v.is_string()) return url_quote(v.get<std::string>(), false);
  auto pair = [](const Value& k, const Value& x) { return url_quote(py_str(k), true) + "=" + url_quote(py_str(x), true); };
  std::string out;
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) out += (out.empty() ? "" : "&") + pair(key_of(k), x);
    return out;
  }
  if (v.is_array()) {
    for (const auto& e : v) {
      if (!e.is_array() || e.size() != 2) fail("urlencode expects a string, a mapping or a list of pairs");
      out += (out.empty() ? "" : "&") + pair(e[0], e[1]);
    }
    return out;
  }
  return url_quote(py_str(v), false);
}

// {'class': 'x', 'id': 'y'} -> ' class="x" id="y"': None and undefined values left out, a leading space unless
// autospace=false.
Value f_xmlattr(const Value& v, const CallArgs& a) {
  if (!v.is_object()) fail("xmlattr expects a mapping, got " + type_name(v));
  std::string out;
  for (const auto& [key, x] : v.items()) {
    if (x.is_null()) continue;
    std::string k = py_str(key_of(key));
    for (char c : k)
      if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == '>' || c == '=')
        fail("invalid character in attribute name: " + py_repr(Value(k)));
    out += (out.empty() ? "" : " ") + k + "=\"" + html_escaped(py_str(x)) + "\"";
  }
  bool autospace = !a.get(0, "autospace") || truthy(*a.get(0, "autospace"));
  return autospace && !out.empty() ? " " + out : out;
}

Value f_pprint(const Value& v, const CallArgs&) { return pretty_printed(v); }

std::string html_escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}


}  // namespace engine::tmpl
