#pragma once
// Values as compact JSON text, the one way the engine writes JSON (request bodies, traces, recordings, tool
// values). Strings are written as UTF-8 (not \u-escaped), and invalid UTF-8 becomes U+FFFD rather than an error:
// the text an LLM or a tool produced is untrusted and must not stop a run.
#include <string>
#include <string_view>

#include "engine/core/value.h"

namespace engine {

std::string to_json_text(const Value& v);
void append_json_text(std::string& out, const Value& v);
// `s` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view s);

}  // namespace engine
