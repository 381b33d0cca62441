#include "engine/spec/yaml_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/spec/format_keys.h"

namespace engine::spec {
namespace {

// 0.001, 86400, 1e+15: a bound as a person reads it.
std::string shown_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}


bool is_plain(const YAML::Node& n) { return n.Tag() == "?" || n.Tag().empty(); }

// The whole scalar as a number of type T (an optional leading '+'), or nullopt.
template <class T>
std::optional<T> as_number(const std::string& s) {
  T v{};
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || b == e) return std::nullopt;
  return v;
}

std::optional<long long> as_integer(const std::string& s) { return as_number<long long>(s); }

std::optional<double> as_double(const std::string& s) {
  if (s == ".inf" || s == ".Inf" || s == "+.inf") return HUGE_VAL;
  return as_number<double>(s);
}

std::optional<bool> as_bool(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "False" || s == "FALSE" || s == "no" || s == "off") return false;
  return std::nullopt;
}

}  // namespace

SourceLoc YamlReader::loc(const YAML::Node& n) const {
  YAML::Mark m = n.Mark();
  if (m.line < 0) return SourceLoc{src_.name()};
  return src_.loc(m.line + 1, m.column + 1);
}

void YamlReader::fail(ErrorKind kind, const std::string& message, const YAML::Node& at) const {
  fail_at(kind, message, loc(at));
}

void YamlReader::fail_at(ErrorKind kind, const std::string& message, const SourceLoc& at) const {
  throw Error(kind, message, at, at.line > 0 ? std::string(src_.line(at.line)) : std::string());
}

std::string YamlReader::what_is(const YAML::Node& n) const {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  return "an undefined value";
}

void YamlReader::expect_map(const YAML::Node& node, const std::string& path,
                            const std::vector<std::string>& allowed) const {
  if (!node.IsMap()) fail(ErrorKind::SpecWrongType, path + " must be a mapping, got " + what_is(node), node);
  std::vector<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(ErrorKind::SpecWrongType, "keys in " + path + " must be plain names", kv.first);
    const std::string& key = kv.first.Scalar();
    // Neither stops the rest of the mapping from being read: the key is passed over (yaml-cpp reads the first of
    // two with one name).
    noted(found_, [&] {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string misplaced = misplaced_key_hint(allowed, path, key);
        fail(ErrorKind::SpecUnknownKey, "unknown key '" + key + "' in " + path +
                                     (misplaced.empty() ? did_you_mean(key, allowed) : misplaced),
             kv.first);
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        fail(ErrorKind::SpecDuplicateKey, "duplicate key '" + key + "' in " + path, kv.first);
    });
    seen.push_back(key);
  }
}

void YamlReader::expect_present(const YAML::Node& parent, const char* key, const std::string& path) const {
  if (!parent[key]) fail(ErrorKind::SpecMissingKey, "missing required key '" + std::string(key) + "' in " + path, parent);
}

std::string YamlReader::str(const YAML::Node& n, const std::string& path) const {
  if (!n.IsScalar()) fail(ErrorKind::SpecWrongType, path + " must be a string, got " + what_is(n), n);
  try {
    return interpolate_env(n.Scalar(), env_);
  } catch (const Error& e) {
    fail(e.kind(), e.message() + " in " + path, n);
  }
}

Located<std::string> YamlReader::located_str(const YAML::Node& n, const std::string& path) const {
  return {str(n, path), loc(n)};
}

Located<std::string> YamlReader::located_raw(const YAML::Node& n, const std::string& path) const {
  if (!n.IsScalar()) fail(ErrorKind::SpecWrongType, path + " must be a string, got " + what_is(n), n);
  return {n.Scalar(), loc(n)};
}

long long YamlReader::integer(const YAML::Node& n, const std::string& path, long long min, long long max) const {
  std::string s = n.IsScalar() ? str(n, path) : "";
  auto v = n.IsScalar() ? as_integer(s) : std::nullopt;
  if (!v) fail(ErrorKind::SpecWrongType, path + " must be an integer, got " + what_is(n), n);
  if (*v < min || *v > max)
    fail(ErrorKind::SpecOutOfRange,
         path + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + s, n);
  return *v;
}

double YamlReader::number(const YAML::Node& n, const std::string& path, double min, double max) const {
  std::string s = n.IsScalar() ? str(n, path) : "";
  auto v = n.IsScalar() ? as_double(s) : std::nullopt;
  if (!v || std::isnan(*v)) fail(ErrorKind::SpecWrongType, path + " must be a number, got " + what_is(n), n);
  if (*v < min) fail(ErrorKind::SpecOutOfRange, path + " must be at least " + shown_number(min) + ", got " + s, n);
  if (*v > max) fail(ErrorKind::SpecOutOfRange, path + " must be at most " + shown_number(max) + ", got " + s, n);
  return *v;
}

bool YamlReader::boolean(const YAML::Node& n, const std::string& path) const {
  auto v = n.IsScalar() ? as_bool(n.Scalar()) : std::nullopt;
  if (!v) fail(ErrorKind::SpecWrongType, path + " must be true or false, got " + what_is(n), n);
  return *v;
}

std::vector<Located<std::string>> YamlReader::str_list(const YAML::Node& n, const std::string& path) const {
  std::vector<Located<std::string>> out;
  if (n.IsScalar()) {
    out.push_back(located_str(n, path));
    return out;
  }
  if (!n.IsSequence()) fail(ErrorKind::SpecWrongType, path + " must be a list of strings, got " + what_is(n), n);
  for (size_t i = 0; i < n.size(); ++i) out.push_back(located_str(n[i], path + "[" + std::to_string(i) + "]"));
  return out;
}

Value YamlReader::value(const YAML::Node& n, const std::string& path) const {
  long budget = limits::kYamlValueNodes;
  return value_at(n, path, 0, budget);
}

Value YamlReader::value_at(const YAML::Node& n, const std::string& path, int depth, long& budget) const {
  if (--budget < 0)
    fail(ErrorKind::SpecTooLarge, path + " expands to more than " + std::to_string(limits::kYamlValueNodes) +
                               " values (an alias bomb?)", n);
  if (depth > limits::kYamlValueDepth)
    fail(ErrorKind::SpecTooDeep, path + " is nested deeper than " + std::to_string(limits::kYamlValueDepth) +
                              " levels (a self-referencing alias?)", n);
  if (n.IsNull()) return nullptr;
  if (n.IsScalar()) {
    std::string s = str(n, path);
    if (is_plain(n)) {
      if (auto i = as_integer(s)) return *i;
      if (auto d = as_double(s)) return *d;
      if (auto b = as_bool(s)) return *b;
      if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    }
    return s;
  }
  if (n.IsSequence()) {
    Value arr = Value::array();
    for (size_t i = 0; i < n.size(); ++i)
      arr.push_back(value_at(n[i], path + "[" + std::to_string(i) + "]", depth + 1, budget));
    return arr;
  }
  if (n.IsMap()) {
    Value obj = Value::object();
    for (const auto& kv : n) {
      std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (obj.contains(key)) fail(ErrorKind::SpecDuplicateKey, "duplicate key '" + key + "' in " + path, kv.first);
      obj[key] = value_at(kv.second, path + "." + key, depth + 1, budget);
    }
    return obj;
  }
  return nullptr;
}

}  // namespace engine::spec
