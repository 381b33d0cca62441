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
// Adds a member the caller knows is new (a CSV header's columns, checked unique) at the end of `object`, without the
// search `object[key]` makes through every member before it: an object built this way costs time in its size, not
// in the square of it.
inline Value& append_new_member(Value& object, std::string key, Value value) {
  auto& members = static_cast<Value::object_t::Container&>(object.get_ref<Value::object_t&>());
  return members.emplace_back(std::move(key), std::move(value)).second;
}

}  // namespace engine
