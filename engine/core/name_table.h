#pragma once
// An enum's names in one table: what a value is called where it leaves (JSON, traces, the store, messages), and
// the value a name read from outside stands for.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

template <class E, size_t N>
std::string_view name_in(const Named<E> (&table)[N], E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return table[0].name;  // unreachable while the table lists every value (its test checks that)
}

template <class E, size_t N>
std::optional<E> value_named(const Named<E> (&table)[N], std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

template <class E, size_t N>
std::vector<std::string> names_in(const Named<E> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

}  // namespace engine
