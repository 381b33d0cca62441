#pragma once
// Events as JSON, made only where they leave the process (a trace file, the run store, SSE, a span's content) and
// read back where a stored run is shown again. What each kind writes is listed once, in core/event_kinds.h.
#include <string>

#include "engine/core/event.h"

namespace engine {

// The event's fields, each appended to `out` as `,"key":value`: the trace line writes its own keys first.
void append_event_fields(std::string& out, const Event& event, EventDetail detail = EventDetail::Full);
// The event's fields as a JSON object.
Value event_fields(const Event& event, EventDetail detail = EventDetail::Full);
// An error as events write it: {kind, message, at when known}.
Value error_value(const events::ErrorInfo& error);
// An event of `type` read back from its fields (a trace line, a stored run). A record is outside input: a field it
// lacks, or holds in another JSON type, stays at its default; nothing it holds makes this throw.
Event event_from_fields(EventType type, const Value& fields);

}  // namespace engine
