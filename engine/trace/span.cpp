#include "engine/trace/span.h"

#include <cstring>

namespace engine::trace {

Attributes::Attributes(std::initializer_list<std::pair<const char*, Value>> items) {
  items_.reserve(items.size());
  for (const auto& [name, value] : items) set_json(name, value);
}

void Attributes::set(const char* name, AttributeValue value) {
  for (Item& item : items_)
    if (std::strcmp(item.name, name) == 0) {
      item.value = std::move(value);
      return;
    }
  if (items_.empty()) items_.reserve(12);  // a chat span's attributes in one allocation
  items_.push_back(Item{name, std::move(value)});
}

void Attributes::set_json(const char* name, const Value& value) {
  if (value.is_boolean()) return set(name, AttributeValue(value.get<bool>()));
  if (value.is_number_integer()) return set(name, AttributeValue(value.get<int64_t>()));
  if (value.is_number()) return set(name, AttributeValue(value.get<double>()));
  if (value.is_string()) return set(name, AttributeValue(value.get<std::string>()));
  if (value.is_array()) {
    std::vector<std::string> texts;
    for (const Value& v : value) texts.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    return set(name, AttributeValue(std::move(texts)));
  }
  set(name, AttributeValue(value.dump()));
}

const AttributeValue* Attributes::find(std::string_view name) const {
  for (const Item& item : items_)
    if (name == item.name) return &item.value;
  return nullptr;
}

Value Attributes::operator[](std::string_view name) const {
  const AttributeValue* v = find(name);
  return v ? attribute_json(*v) : Value();
}

Value attribute_json(const AttributeValue& value) {
  return std::visit([](const auto& v) { return Value(v); }, value);
}

}  // namespace engine::trace
