#include "engine/trace/event_record.h"

#include "engine/core/json_text.h"

namespace engine::trace {

Value event_record(const Event& e, const EventPlace& place, double t_ms, EventDetail detail) {
  Value record{{"t_ms", t_ms}, {"type", event_name(e.type)}};
  if (!place.run_id.empty()) record["run_id"] = place.run_id;
  if (!place.step.empty()) record["path"] = place.step;
  if (e.data.is_object())
    for (const auto& [k, v] : e.data.items())
      if (detail == EventDetail::Full || !is_full_detail_field(e.type, k)) record[k] = v;
  return record;
}

std::string event_line(const Event& e, const EventPlace& place, double t_ms) {
  // Data that names one of the record's own keys replaces it, as event_record() does: that rare case takes the tree.
  if (e.data.is_object())
    for (const char* own : {"t_ms", "type", "run_id", "path"})
      if (e.data.contains(own)) return to_json_text(event_record(e, place, t_ms));
  std::string out = "{\"t_ms\":";
  append_json_text(out, Value(t_ms));
  out += ",\"type\":";
  append_json_string(out, event_name(e.type));
  if (!place.run_id.empty()) {
    out += ",\"run_id\":";
    append_json_string(out, place.run_id);
  }
  if (!place.step.empty()) {
    out += ",\"path\":";
    append_json_string(out, place.step);
  }
  if (e.data.is_object())
    for (const auto& [k, v] : e.data.items()) {
      out += ',';
      append_json_string(out, k);
      out += ':';
      append_json_text(out, v);
    }
  out += '}';
  return out;
}

}  // namespace engine::trace
