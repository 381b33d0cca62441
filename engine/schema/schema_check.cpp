#include "engine/schema/schema_check.h"

#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::schema {
namespace {

// What a keyword's value holds.
enum class Holds {
  Value,         // plain data, checked by `expect`
  Schema,        // one subschema
  Schemas,       // a non-empty array of subschemas
  SchemaMap,     // names to subschemas
  Items,         // a subschema or an array of them
  Dependencies,  // names to an array of names or a subschema
  Ref,           // a local reference
};

enum class Expect { Any, String, Number, PositiveNumber, Count, Bool, Strings, Array, Type };

struct Keyword {
  std::string_view name;
  Holds holds;
  Expect expect = Expect::Any;
  bool in_place = false;           // its subschemas apply to the same value (a loop through them never ends)
  const char* engine_name = nullptr;  // checked by the engine's own constraint under this name
  bool dropped = false;            // not given to valijson: an annotation here
};

const Keyword kKeywords[] = {
    {"$schema", Holds::Value, Expect::String},
    {"$id", Holds::Value, Expect::String, false, nullptr, true},
    {"$comment", Holds::Value, Expect::String},
    {"$ref", Holds::Ref},
    {"title", Holds::Value, Expect::String},
    {"description", Holds::Value, Expect::String},
    {"default", Holds::Value},
    {"examples", Holds::Value, Expect::Array},
    {"readOnly", Holds::Value, Expect::Bool},
    {"writeOnly", Holds::Value, Expect::Bool},
    {"contentMediaType", Holds::Value, Expect::String},
    {"contentEncoding", Holds::Value, Expect::String},
    {"format", Holds::Value, Expect::String, false, nullptr, true},
    {"type", Holds::Value, Expect::Type},
    {"enum", Holds::Value, Expect::Array},
    {"const", Holds::Value},
    {"multipleOf", Holds::Value, Expect::PositiveNumber},
    {"maximum", Holds::Value, Expect::Number},
    {"exclusiveMaximum", Holds::Value, Expect::Number},
    {"minimum", Holds::Value, Expect::Number},
    {"exclusiveMinimum", Holds::Value, Expect::Number},
    {"maxLength", Holds::Value, Expect::Count, false, kEngineMaxLength},
    {"minLength", Holds::Value, Expect::Count, false, kEngineMinLength},
    {"pattern", Holds::Value, Expect::String, false, kEnginePattern},
    {"items", Holds::Items},
    {"additionalItems", Holds::Schema},
    {"maxItems", Holds::Value, Expect::Count},
    {"minItems", Holds::Value, Expect::Count},
    {"uniqueItems", Holds::Value, Expect::Bool, false, kEngineUniqueItems},
    {"contains", Holds::Schema},
    {"maxProperties", Holds::Value, Expect::Count},
    {"minProperties", Holds::Value, Expect::Count},
    {"required", Holds::Value, Expect::Strings},
    {"properties", Holds::SchemaMap},
    {"additionalProperties", Holds::Schema},
    {"dependencies", Holds::Dependencies, Expect::Any, true},
    {"propertyNames", Holds::Schema},
    {"if", Holds::Schema, Expect::Any, true},
    {"then", Holds::Schema, Expect::Any, true},
    {"else", Holds::Schema, Expect::Any, true},
    {"allOf", Holds::Schemas, Expect::Any, true},
    {"anyOf", Holds::Schemas, Expect::Any, true},
    {"oneOf", Holds::Schemas, Expect::Any, true},
    {"not", Holds::Schema, Expect::Any, true},
    {"definitions", Holds::SchemaMap},
    {"$defs", Holds::SchemaMap},  // draft 2019's name, which Pydantic and others write; a $ref reaches it by pointer
};

// Keywords of JSON Schema this module does not check, named so that a schema relying on one fails at build time
// rather than validating less than its author thinks.
const std::map<std::string_view, std::string_view> kUnsupported = {
    {"patternProperties", "its regexes would run on names from outside with an unbounded engine"},
    {"$anchor", "only $refs by JSON pointer (#/definitions/x) are supported"},
    {"$recursiveRef", "draft 2019"},
    {"$recursiveAnchor", "draft 2019"},
    {"$dynamicRef", "draft 2020"},
    {"$dynamicAnchor", "draft 2020"},
    {"$vocabulary", "draft 2019"},
    {"dependentRequired", "draft 2019; draft 7 writes it as dependencies"},
    {"dependentSchemas", "draft 2019; draft 7 writes it as dependencies"},
    {"prefixItems", "draft 2020; draft 7 writes it as an array in items"},
    {"unevaluatedProperties", "draft 2019"},
    {"unevaluatedItems", "draft 2019"},
    {"minContains", "draft 2019"},
    {"maxContains", "draft 2019"},
    {"contentSchema", "draft 2019"},
};

const Keyword* find_keyword(std::string_view name) {
  for (const auto& k : kKeywords)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> keyword_names() {
  std::vector<std::string> names;
  for (const auto& k : kKeywords) names.emplace_back(k.name);
  return names;
}

bool is_type_name(const Value& v) {
  static const std::set<std::string> kTypes = {"null", "boolean", "object", "array", "number", "string", "integer"};
  return v.is_string() && kTypes.count(v.get<std::string>());
}

// Why `v` is not what `expect` asks for, or "" when it is.
std::string wrong_value(Expect expect, const Value& v) {
  switch (expect) {
    case Expect::Any: return "";
    case Expect::String: return v.is_string() ? "" : "must be a string";
    case Expect::Number: return v.is_number() ? "" : "must be a number";
    case Expect::PositiveNumber: return v.is_number() && v.get<double>() > 0 ? "" : "must be a number above 0";
    case Expect::Count:
      // 2.0 counts as 2, as the specification allows
      if (v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0)) return "";
      if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())))
        return "";
      return "must be a whole number, 0 or more";
    case Expect::Bool: return v.is_boolean() ? "" : "must be true or false";
    case Expect::Array: return v.is_array() ? "" : "must be an array";
    case Expect::Strings: {
      if (!v.is_array()) return "must be an array of names";
      std::set<std::string> seen;
      for (const auto& e : v) {
        if (!e.is_string()) return "must be an array of names";
        if (!seen.insert(e.get<std::string>()).second) return "names '" + e.get<std::string>() + "' twice";
      }
      return "";
    }
    case Expect::Type: {
      if (is_type_name(v)) return "";
      if (v.is_array() && !v.empty()) {
        bool all = true;
        for (const auto& e : v) all = all && is_type_name(e);
        if (all) return "";
      }
      return "must be one of null, boolean, object, array, number, string, integer, or an array of them";
    }
  }
  return "";
}

std::string percent_decode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

class Checker {
 public:
  explicit Checker(const SchemaOptions& options) : options_(options) {}

  CheckedSchema run(const Value& schema) {
    CheckedSchema out;
    out.rewritten = walk(schema, "", 0);
    check_refs();
    if (problems_.empty()) check_loops();
    out.problems = std::move(problems_);
    return out;
  }

 private:
  void problem(const std::string& pointer, std::string message) {
    problems_.push_back({pointer, std::move(message)});
  }

  // The subschema at `pointer`, as valijson will read it.
  nlohmann::json walk(const Value& node, const std::string& pointer, int depth) {
    schemas_.insert(pointer);
    // valijson does not take `false` everywhere (a $ref to it, the whole schema); these mean the same.
    if (node.is_boolean()) return node.get<bool>() ? nlohmann::json::object() : nlohmann::json{{"not", nlohmann::json::object()}};
    if (!node.is_object()) {
      problem(pointer, std::string("a schema must be an object or true/false, not ") + json_type_name(node));
      return nlohmann::json::object();
    }
    if (depth > limits::kJsonDepth) {
      problem(pointer, "the schema is nested deeper than " + std::to_string(limits::kJsonDepth) + " levels");
      return nlohmann::json::object();
    }
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : node.items()) {
      std::string at = pointer + "/" + pointer_token(key);
      const Keyword* k = find_keyword(key);
      if (!k) {
        auto unsupported = kUnsupported.find(key);
        if (unsupported != kUnsupported.end())
          problem(at, "unsupported keyword '" + key + "' (" + std::string(unsupported->second) + ")");
        else if (!starts_with(key, "x-"))
          problem(at, "unknown keyword '" + key + "'" + did_you_mean(key, keyword_names()) +
                          " (extensions are written x-name)");
        continue;
      }
      if (std::string why = wrong_value(k->expect, value); !why.empty()) {
        problem(at, "'" + key + "' " + why);
        continue;
      }
      if (k->dropped) continue;
      std::string name = k->engine_name ? k->engine_name : key;
      out[name] = walk_keyword(*k, value, pointer, at, depth);
    }
    out[kEngineStep] = true;
    return out;
  }

  nlohmann::json walk_keyword(const Keyword& k, const Value& value, const std::string& owner, const std::string& at,
                              int depth) {
    auto child = [&](const Value& v, const std::string& p) {
      if (k.in_place) in_place_[owner].push_back(p);
      return walk(v, p, depth + 1);
    };
    switch (k.holds) {
      case Holds::Value:
        if (k.engine_name == kEnginePattern) check_pattern(value.get<std::string>(), at);
        return nlohmann::json(value);
      case Holds::Schema: return child(value, at);
      case Holds::Items:
        if (!value.is_array()) return child(value, at);
        [[fallthrough]];
      case Holds::Schemas: {
        if (!value.is_array() || (k.holds == Holds::Schemas && value.empty())) {
          problem(at, "'" + std::string(k.name) + "' must be a non-empty array of schemas");
          return nlohmann::json::array();
        }
        nlohmann::json arr = nlohmann::json::array();
        for (size_t i = 0; i < value.size(); ++i) arr.push_back(child(value[i], at + "/" + std::to_string(i)));
        return arr;
      }
      case Holds::SchemaMap:
      case Holds::Dependencies: {
        if (!value.is_object()) {
          problem(at, "'" + std::string(k.name) + "' must be an object of schemas by name");
          return nlohmann::json::object();
        }
        nlohmann::json map = nlohmann::json::object();
        for (const auto& [name, sub] : value.items()) {
          std::string p = at + "/" + pointer_token(name);
          if (k.holds == Holds::Dependencies && sub.is_array()) {
            if (std::string why = wrong_value(Expect::Strings, sub); !why.empty()) problem(p, "a dependency " + why);
            map[name] = nlohmann::json(sub);
          } else {
            map[name] = child(sub, p);
          }
        }
        return map;
      }
      case Holds::Ref: {
        if (!value.is_string()) {
          problem(at, "'$ref' must be a string");
          return nlohmann::json("#");
        }
        refs_.push_back({owner, at, value.get<std::string>()});
        return nlohmann::json(value);
      }
    }
    return nlohmann::json(value);
  }

  void check_pattern(const std::string& pattern, const std::string& at) {
    if (!options_.patterns) {
      problem(at, "unsupported keyword 'pattern' (no regex engine was given to this schema)");
      return;
    }
    try {
      options_.patterns(pattern);
    } catch (const Error& e) {
      problem(at, "the pattern does not compile: " + e.message());
    }
  }

  // Every $ref must point, by JSON pointer inside this schema, at a subschema.
  void check_refs() {
    for (const auto& r : refs_) {
      if (r.ref.empty() || r.ref[0] != '#') {
        problem(r.at, "unsupported remote $ref '" + r.ref + "': only references inside the schema (#/definitions/x)");
        continue;
      }
      std::string target = percent_decode(std::string_view(r.ref).substr(1));
      if (!target.empty() && target[0] != '/') {
        problem(r.at, "unsupported $ref '" + r.ref + "': only JSON pointers (#/definitions/x), not anchors");
        continue;
      }
      if (!schemas_.count(target)) {
        problem(r.at, "$ref '" + r.ref + "' does not point at a schema in this document");
        continue;
      }
      in_place_[r.owner].push_back(target);
    }
  }

  // A loop of $refs and in-place keywords (allOf, not, ...) never reaches into the value: validating would not end.
  void check_loops() {
    std::map<std::string, int> state;  // 1 on the path, 2 done
    std::vector<std::string> path;
    std::function<bool(const std::string&)> visit = [&](const std::string& node) {
      state[node] = 1;
      path.push_back(node);
      for (const auto& next : in_place_[node]) {
        if (state[next] == 1) {
          std::vector<std::string> loop;
          bool on = false;
          for (const auto& p : path) {
            on = on || p == next;
            if (on) loop.push_back("#" + p);
          }
          loop.push_back("#" + next);
          problem(next, "the schema refers to itself without reaching into the value: " + join(loop, " -> "));
          return true;
        }
        if (state[next] == 0 && visit(next)) return true;
      }
      path.pop_back();
      state[node] = 2;
      return false;
    };
    for (const auto& node : schemas_)
      if (state[node] == 0 && visit(node)) return;
  }

  struct Ref {
    std::string owner, at, ref;
  };

  const SchemaOptions& options_;
  std::vector<Violation> problems_;
  std::set<std::string> schemas_;                           // pointers of every subschema
  std::map<std::string, std::vector<std::string>> in_place_;  // subschema -> subschemas applied to the same value
  std::vector<Ref> refs_;
};

}  // namespace

const char* json_type_name(const Value& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string pointer_token(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string unescape_pointer_token(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

CheckedSchema check_and_rewrite(const Value& schema, const SchemaOptions& options) {
  return Checker(options).run(schema);
}

}  // namespace engine::schema
