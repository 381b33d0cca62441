#pragma once
// An event as one JSON object: {"t_ms", "type", "run_id", "path" (a step's), ...its data}: the line of a --trace
// file and the data of a served run's stream event.
#include <string>

#include "engine/core/event.h"

namespace engine::trace {

// With EventDetail::Summary the fields emitters add for Full readers only (prompts, messages, inputs) are left out.
Value event_record(const Event& event, const EventPlace& place, double t_ms, EventDetail detail = EventDetail::Full);
// The same object as JSON text, written straight out (no copy of the event's data into a new tree): the line a
// --trace file and the run store keep.
std::string event_line(const Event& event, const EventPlace& place, double t_ms);

}  // namespace engine::trace
