#include "engine/workflow/for_each.h"

#include <atomic>
#include <mutex>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/fiber.h"

namespace engine::workflow {

std::vector<StepOutcome> map_items(const Value& items, size_t concurrency,
                                   const std::function<StepOutcome(size_t, const Value&)>& run_item) {
  size_t n = items.size();
  std::vector<StepOutcome> out(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::optional<Error> first;  // the failure of the lowest-numbered item that failed
  size_t first_index = n;
  auto worker = [&] {
    for (size_t i; !failed && (i = next++) < n;) {
      try {
        out[i] = run_item(i, items[i]);
      } catch (const Error& e) {
        std::lock_guard lock(mutex);
        if (i < first_index) first = Error(e.kind(), "item " + std::to_string(i) + ": " + e.what()), first_index = i;
        failed = true;
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        if (i < first_index)
          first = Error(ErrorKind::EngineInternal, "item " + std::to_string(i) + ": internal error: " + e.what()), first_index = i;
        failed = true;
      }
    }
  };
  {
    TaskGroup others;  // on fibers when the run is on one
    try {
      for (size_t t = 1; t < std::min(concurrency, n); ++t) others.spawn(worker);
    } catch (const std::exception&) {  // no stack or thread for more: the workers started take every item
    }
    worker();  // the caller is one of the workers
  }
  if (first) throw *first;
  return out;
}

}  // namespace engine::workflow
