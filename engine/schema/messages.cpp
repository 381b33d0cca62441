#include "engine/schema/messages.h"

#include <string_view>

#include "engine/schema/schema_check.h"

namespace engine::schema {
namespace {

// "0.000000" -> "0", "2.500000" -> "2.5": valijson writes bounds with std::to_string.
std::string plain_number(std::string_view n) {
  std::string s(n);
  while (!s.empty() && s.back() == '.') s.pop_back();
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// The text after `prefix` up to the first space (a number), or "" when `message` does not start with it.
std::string number_after(std::string_view message, std::string_view prefix) {
  if (message.substr(0, prefix.size()) != prefix) return "";
  std::string_view rest = message.substr(prefix.size());
  return plain_number(rest.substr(0, rest.find(' ')));
}

// The name in "...'name'." at the end of `message`.
std::string quoted_name(std::string_view message) {
  size_t end = message.rfind('\'');
  size_t start = end == std::string_view::npos || end == 0 ? std::string_view::npos : message.rfind('\'', end - 1);
  if (start == std::string_view::npos) return "";
  return std::string(message.substr(start + 1, end - start - 1));
}

const Value* at_pointer(const Value& value, const std::string& pointer) {
  try {
    const Value& v = value.at(Value::json_pointer(pointer));
    return &v;
  } catch (const std::exception&) {
    return nullptr;
  }
}

struct Plain {
  std::string_view prefix;
  const char* words;
};
const Plain kPlain[] = {
    {"Target should not validate against schema specified in 'not'", "is not allowed here"},
    {"Failed to match against any enum values", "is not one of the allowed values (enum)"},
    {"Failed to match expected value set by 'const'", "is not the value the schema requires (const)"},
    {"Failed to validate against any schemas allowed by anyOf", "matches none of the allowed schemas (anyOf)"},
    {"Failed to validate against exactly one child schema", "must match exactly one of the schemas (oneOf)"},
    {"Failed to validate against any child schemas allowed by oneOf", "matches none of the schemas (oneOf)"},
    {"Failed to validate against a conditional schema", "does not match the schema its if/then/else selects"},
    {"Failed to any values against subschema in 'contains'", "has no item that matches 'contains'"},
    {"Array contains more items than allowed by items", "has more items than the schema allows (additionalItems)"},
};

}  // namespace

Violation plain_violation(Violation v, const Value& value) {
  const std::string& m = v.message;
  if (m.rfind("Missing required property", 0) == 0) {
    v.pointer += "/" + pointer_token(quoted_name(m));
    v.message = "is required";
    return v;
  }
  if (m.rfind("Missing dependency", 0) == 0) {
    v.pointer += "/" + pointer_token(quoted_name(m));
    v.message = "is required by another property (dependencies)";
    return v;
  }
  if (m.rfind("Value type not permitted", 0) == 0) {
    const Value* here = at_pointer(value, v.pointer);
    v.message = std::string("has a type the schema does not allow") + (here ? std::string(" (") + json_type_name(*here) + ")" : "");
    return v;
  }
  if (std::string n = number_after(m, "Expected number greater than or equal to "); !n.empty()) v.message = "must be at least " + n;
  else if (std::string n = number_after(m, "Expected number greater than "); !n.empty()) v.message = "must be more than " + n;
  else if (std::string n = number_after(m, "Expected number less than or equal to "); !n.empty()) v.message = "must be at most " + n;
  else if (std::string n = number_after(m, "Expected number less than "); !n.empty()) v.message = "must be less than " + n;
  else if (std::string n = number_after(m, "Value should be a multiple of "); !n.empty()) v.message = "must be a multiple of " + n;
  else if (std::string n = number_after(m, "Array should contain no fewer than "); !n.empty()) v.message = "must have at least " + n + " items";
  else if (std::string n = number_after(m, "Array should contain no more than "); !n.empty()) v.message = "must have at most " + n + " items";
  else if (std::string n = number_after(m, "Object should have no fewer than "); !n.empty()) v.message = "must have at least " + n + " properties";
  else if (std::string n = number_after(m, "Object should have no more than "); !n.empty()) v.message = "must have at most " + n + " properties";
  else
    for (const auto& p : kPlain)
      if (m.rfind(p.prefix, 0) == 0) v.message = p.words;
  return v;
}

}  // namespace engine::schema
