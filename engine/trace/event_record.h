#pragma once
// An event as one JSON object: {"t_ms", "type", "run_id", "path" (a step's), ...its data}: the line of a --trace
// file and the data of a served run's stream event.
#include <string>

#include "engine/core/event.h"

namespace engine::trace {

// With EventDetail::Summary the fields for Full readers only (prompts, messages, inputs) are left out: a sink reading
// a summary may share a fanout with one reading everything, and what it shows must not depend on its neighbours.
Value event_record(const Event& event, const EventPlace& place, double t_ms, EventDetail detail = EventDetail::Full);
// The same object as JSON text, written straight from the event (no tree is built): the line a --trace file and the
// run store keep, and a served stream's event.
std::string event_line(const Event& event, const EventPlace& place, double t_ms, EventDetail detail = EventDetail::Full);

}  // namespace engine::trace
