#pragma once
// One value type for the whole engine: template contexts, tool inputs and outputs, traces.
#include <nlohmann/json.hpp>
#include <string>

namespace engine {
using Value = nlohmann::ordered_json;

// object[key] when `object` is an object that has it, else null: for reading fields of untrusted JSON (a server's
// answer) without copies or type errors.
inline const Value& field(const Value& object, const char* key) {
  static const Value kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it != object.end() ? *it : kNull;
}

// object[key] when `object` is an object holding a string there, else "": for reading fields of untrusted JSON
// (a server's answer) without a type error.
inline std::string string_field(const Value& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}
}  // namespace engine
