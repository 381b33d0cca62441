#pragma once
// What a render reads its names from: one object, or a few looked up in order. A run's own variables sit over its
// inputs this way without copying them: an input of megabytes would otherwise be held once more by every context
// that names it (the prompt's, the outputs').
#include <cstddef>
#include <string_view>

#include "engine/core/value.h"

namespace engine::tmpl {

class Vars {
 public:
  // A factory, not a constructor: a braced list given to render() must build a Value object, never a Vars.
  static Vars of(const Value& object) {
    Vars v;
    v.then(object);
    return v;
  }

  // A layer looked up after those before it: the object's keys, or (named) the whole value under `name`. The
  // values are borrowed and must outlive every render that reads them; `name` too.
  Vars& then(const Value& object) { return add({&object, {}}); }
  Vars& then_named(std::string_view name, const Value& value) { return add({&value, name}); }

  const Value* find(std::string_view name) const;
  // The layers as one object, the first layer's names winning, for what must keep a context of its own
  // ({% import ... with context %}).
  Value flatten() const;

 private:
  Vars() = default;
  struct Layer {
    const Value* value = nullptr;
    std::string_view name;  // empty: the value's keys are the names
  };
  static constexpr size_t kMaxLayers = 4;  // a run's variables, its inputs by name and spread: never more
  Vars& add(Layer layer);

  Layer layers_[kMaxLayers];
  size_t count_ = 0;
};

}  // namespace engine::tmpl
