#include "engine/trace/event_record.h"

namespace engine::trace {

Value event_record(const Event& e, const EventPlace& place, double t_ms) {
  Value record{{"t_ms", t_ms}, {"type", event_name(e.type)}};
  if (!place.run_id.empty()) record["run_id"] = place.run_id;
  if (!place.step.empty()) record["path"] = place.step;
  if (e.data.is_object())
    for (const auto& [k, v] : e.data.items()) record[k] = v;
  return record;
}

}  // namespace engine::trace
