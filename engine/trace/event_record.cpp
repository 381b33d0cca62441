#include "engine/trace/event_record.h"

#include "engine/core/event_json.h"
#include "engine/core/json_text.h"

namespace engine::trace {

Value event_record(const Event& e, const EventPlace& place, double t_ms, EventDetail detail) {
  Value record{{"t_ms", t_ms}, {"type", event_name(e.type())}};
  if (!place.run_id.empty()) record["run_id"] = place.run_id;
  if (!place.step.empty()) record["path"] = place.step;
  Value fields = event_fields(e, detail);
  for (auto& [k, v] : fields.items()) append_new_member(record, k, std::move(v));
  return record;
}

std::string event_line(const Event& e, const EventPlace& place, double t_ms, EventDetail detail) {
  std::string out = "{\"t_ms\":";
  append_json_text(out, Value(t_ms));
  out += ",\"type\":";
  append_json_string(out, event_name(e.type()));
  if (!place.run_id.empty()) {
    out += ",\"run_id\":";
    append_json_string(out, place.run_id);
  }
  if (!place.step.empty()) {
    out += ",\"path\":";
    append_json_string(out, place.step);
  }
  append_event_fields(out, e, detail);
  out += '}';
  return out;
}

}  // namespace engine::trace
