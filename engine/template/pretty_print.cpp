#include "engine/template/pretty_print.h"

#include <algorithm>

#include "engine/core/utf8.h"
#include "engine/template/py_value.h"
#include "engine/template/unicode_case.h"

namespace engine::tmpl {
namespace {

// Widths are Python's: characters, not bytes.
size_t chars(std::string_view s) { return utf8::count(s); }

// pprint's repr sorts a dict's keys, at every depth.
Value sorted_keys(const Value& v) {
  if (v.is_array()) {
    Value out = Value::array();
    for (const Value& e : v) out.push_back(sorted_keys(e));
    return out;
  }
  if (!v.is_object()) return v;
  std::vector<std::pair<Value, const Value*>> items;
  for (const auto& [k, e] : v.items()) items.emplace_back(key_of(k), &e);
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    try {
      return py_compare(a.first, b.first) < 0;
    } catch (const BuiltinError&) {  // keys Python cannot order: pprint falls back to their types' names
      return type_name(a.first) < type_name(b.first);
    }
  });
  Value out = Value::object();
  for (auto& [k, e] : items) out[dict_key(k)] = sorted_keys(*e);
  return out;
}

class PrettyPrinter {
 public:
  explicit PrettyPrinter(size_t width) : width_(width) {}

  void format(const Value& v, size_t indent, size_t allowance, int level) {
    ++level;
    std::string rep = py_repr(v);
    size_t max_width = width_ > indent + allowance ? width_ - indent - allowance : 0;
    if (chars(rep) <= max_width) {
      out += rep;
      return;
    }
    if (v.is_object() && !v.empty()) return dict(v, indent, allowance, level);
    if (v.is_array() && !v.empty()) return list(v, indent, allowance, level);
    if (v.is_string()) return string(v.get_ref<const std::string&>(), indent, allowance, level);
    out += rep;
  }

  std::string out;

 private:
  void dict(const Value& v, size_t indent, size_t allowance, int level) {
    out += '{';
    indent += 1;
    size_t i = 0, last = v.size() - 1;
    for (const auto& [k, e] : v.items()) {
      std::string key = py_repr(key_of(k));
      out += key + ": ";
      format(e, indent + chars(key) + 2, i == last ? allowance + 1 : 1, level);
      if (i++ != last) out += ",\n" + std::string(indent, ' ');
    }
    out += '}';
  }

  void list(const Value& v, size_t indent, size_t allowance, int level) {
    out += '[';
    indent += 1;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ",\n" + std::string(indent, ' ');
      format(v[i], indent, i + 1 == v.size() ? allowance + 1 : 1, level);
    }
    out += ']';
  }

  // Lines, then runs of a word and the spaces after it, packed into pieces that fit.
  void string(const std::string& s, size_t indent, size_t allowance, int level) {
    std::vector<std::string> lines;
    for (size_t at = 0; at < s.size();) {
      size_t end = s.find('\n', at);
      end = end == std::string::npos ? s.size() : end + 1;
      lines.push_back(s.substr(at, end - at));
      at = end;
    }
    if (level == 1) indent += 1, allowance += 1;
    size_t max_width = width_ > indent ? width_ - indent : 0, max_width1 = max_width;
    std::vector<std::string> chunks;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      bool last_line = i + 1 == lines.size();
      if (last_line) max_width1 = max_width1 > allowance ? max_width1 - allowance : 0;
      if (chars(py_repr(Value(line))) <= max_width1) {
        chunks.push_back(py_repr(Value(line)));
        continue;
      }
      std::vector<std::string> parts;  // \S*\s*
      for (size_t at = 0; at < line.size();) {
        size_t p = at;
        while (p < line.size() && !std::isspace(static_cast<unsigned char>(line[p]))) ++p;
        while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
        parts.push_back(line.substr(at, p - at));
        at = p;
      }
      size_t max_width2 = max_width;
      std::string current;
      for (size_t j = 0; j < parts.size(); ++j) {
        std::string candidate = current + parts[j];
        if (j + 1 == parts.size() && last_line) max_width2 = max_width2 > allowance ? max_width2 - allowance : 0;
        if (chars(py_repr(Value(candidate))) > max_width2) {
          if (!current.empty()) chunks.push_back(py_repr(Value(current)));
          current = parts[j];
        } else {
          current = std::move(candidate);
        }
      }
      if (!current.empty()) chunks.push_back(py_repr(Value(current)));
    }
    if (chunks.size() == 1) {
      out += py_repr(Value(s));
      return;
    }
    if (level == 1) out += '(';
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (i > 0) out += "\n" + std::string(indent, ' ');
      out += chunks[i];
    }
    if (level == 1) out += ')';
  }

  size_t width_;
};

}  // namespace

std::string pretty_printed(const Value& v, size_t width) {
  PrettyPrinter p(width);
  p.format(sorted_keys(v), 0, 0, 0);
  return std::move(p.out);
}

}  // namespace engine::tmpl
