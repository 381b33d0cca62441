#include "engine/template/vars.h"

#include <stdexcept>

namespace engine::tmpl {

Vars& Vars::add(Layer layer) {
  if (count_ == kMaxLayers) throw std::logic_error("tmpl::Vars holds at most 4 layers");
  layers_[count_++] = layer;
  return *this;
}

const Value* Vars::find(std::string_view name) const {
  for (size_t i = 0; i < count_; ++i) {
    const Layer& l = layers_[i];
    if (!l.name.empty()) {
      if (l.name == name) return l.value;
    } else if (l.value->is_object()) {
      auto it = l.value->find(name);
      if (it != l.value->end()) return &*it;
    }
  }
  return nullptr;
}

Value Vars::flatten() const {
  Value out = Value::object();
  for (size_t i = count_; i-- > 0;) {
    const Layer& l = layers_[i];
    if (!l.name.empty()) out[std::string(l.name)] = *l.value;
    else if (l.value->is_object())
      for (const auto& [k, v] : l.value->items()) out[k] = v;
  }
  return out;
}

}  // namespace engine::tmpl
