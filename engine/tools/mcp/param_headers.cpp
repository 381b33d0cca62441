#include "engine/tools/mcp/param_headers.h"

#include <algorithm>
#include <cctype>

#include "engine/core/text.h"

namespace engine::tools::mcp {
namespace {

constexpr const char* kAnnotation = "x-mcp-header";
constexpr size_t kMaxDepth = 32;
// The keywords whose subschemas lie off the chain of `properties` (JSON Schema 2020-12 and draft 7).
const char* const kSubschemas[] = {"items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties",
                                   "unevaluatedItems", "propertyNames", "patternProperties", "dependentSchemas",
                                   "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions"};

bool http_token(const std::string& s) {
  static const std::string kSpecial = "!#$%&'*+-.^_`|~";
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || kSpecial.find(c) != std::string::npos;
  });
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Walks `node`: along `properties` an annotation declares a parameter; under any other subschema keyword (items,
// oneOf, $defs, ...) it makes the whole definition invalid.
void walk(const Value& node, std::vector<std::string>& path, bool on_chain, size_t depth, std::vector<HeaderParam>& out,
          std::string& invalid) {
  if (!invalid.empty() || !node.is_object() || depth > kMaxDepth) return;
  std::string where = path.empty() ? "the schema" : "'" + printable_excerpt(path.back(), 60) + "'";
  if (auto a = node.find(kAnnotation); a != node.end()) {
    if (!on_chain || path.empty()) {
      invalid = "x-mcp-header on " + where + " is not on a property reached through 'properties' alone";
      return;
    }
    if (!a->is_string() || !http_token(a->get<std::string>())) {
      invalid = "x-mcp-header on " + where + " is not an HTTP token";
      return;
    }
    auto type = node.find("type");
    std::string t = type != node.end() && type->is_string() ? type->get<std::string>() : "";
    if (t != "string" && t != "integer" && t != "boolean") {
      invalid = "x-mcp-header on " + where + " is on a property of type '" + t + "' (string, integer or boolean only)";
      return;
    }
    std::string name = a->get<std::string>();
    for (const HeaderParam& p : out)
      if (lowercase(p.name) == lowercase(name)) {
        invalid = "x-mcp-header '" + name + "' is declared twice";
        return;
      }
    out.push_back({path, std::move(name), t});
  }
  for (const auto& [key, child] : node.items()) {
    if (key == "properties" && child.is_object()) {
      for (const auto& [name, property] : child.items()) {
        path.push_back(name);
        walk(property, path, on_chain, depth + 1, out, invalid);
        path.pop_back();
      }
    } else if (std::find(std::begin(kSubschemas), std::end(kSubschemas), key) != std::end(kSubschemas)) {
      // Any other subschema (items, oneOf's branches, $defs' entries, ...): no annotation may hide there.
      auto visit = [&](const Value& sub) { walk(sub, path, false, depth + 1, out, invalid); };
      bool named = key == "$defs" || key == "definitions" || key == "patternProperties" || key == "dependentSchemas";
      if (child.is_array() || named) {
        for (const auto& [n, branch] : child.items()) visit(branch);
      } else {
        visit(child);
      }
    }
  }
}

std::string base64(std::string_view bytes) {
  static const char* kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
  }
  return out;
}

// A string as a header's value: itself when it is a plain field value, else in the Base64 form.
std::string field_value(const std::string& s) {
  bool plain = !s.empty() && s.front() != ' ' && s.front() != '\t' && s.back() != ' ' && s.back() != '\t' &&
               !(s.starts_with("=?base64?") && s.ends_with("?=")) &&
               std::all_of(s.begin(), s.end(), [](char c) { return c == '\t' || (c >= 0x20 && c <= 0x7e); });
  return plain ? s : "=?base64?" + base64(s) + "?=";
}

}  // namespace

std::vector<HeaderParam> header_params(const Value& input_schema, std::string& invalid) {
  std::vector<HeaderParam> out;
  std::vector<std::string> path;
  invalid.clear();
  walk(input_schema, path, true, 0, out, invalid);
  if (!invalid.empty()) out.clear();
  return out;
}

std::vector<std::string> param_header_lines(const std::vector<HeaderParam>& params, const Value& arguments) {
  std::vector<std::string> lines;
  for (const HeaderParam& p : params) {
    const Value* v = &arguments;
    for (const std::string& key : p.path) {
      auto it = v->is_object() ? v->find(key) : v->end();
      if (!v->is_object() || it == v->end()) {
        v = nullptr;
        break;
      }
      v = &*it;
    }
    if (!v || v->is_null()) continue;
    std::string value;
    if (p.type == "string" && v->is_string()) value = field_value(v->get<std::string>());
    else if (p.type == "boolean" && v->is_boolean()) value = v->get<bool>() ? "true" : "false";
    else if (p.type == "integer" && v->is_number_integer()) value = v->dump();
    else continue;  // not what the declaration admits: no header rather than a malformed one
    lines.push_back("Mcp-Param-" + p.name + ": " + value);
  }
  return lines;
}

}  // namespace engine::tools::mcp
