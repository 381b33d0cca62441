#pragma once
// A step mapped over a list (for_each): each item run by the step's work, a bounded number at once, the outputs in
// the items' order.
#include <cstddef>
#include <functional>
#include <vector>

#include "engine/workflow/step.h"

namespace engine::workflow {

// Runs `run_item(index, item)` for each item of the array `items`, at most `concurrency` at once, and returns the
// outcomes in the items' order. The first item that fails stops new items from starting; once the running ones
// end, its Error is thrown again, naming the item ("item 3: ...").
std::vector<StepOutcome> map_items(const Value& items, size_t concurrency,
                                   const std::function<StepOutcome(size_t, const Value&)>& run_item);

}  // namespace engine::workflow
