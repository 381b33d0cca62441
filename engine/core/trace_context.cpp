#include "engine/core/trace_context.h"

#include <stdlib.h>  // arc4random_buf: glibc's, thread-safe and seeded by the kernel

#include <algorithm>
#include <string>

namespace engine {
namespace {

std::string random_hex(size_t digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  unsigned char bytes[16];
  std::string id(digits, '0');
  do {
    arc4random_buf(bytes, digits / 2);
    for (size_t i = 0; i < digits / 2; ++i) {
      id[2 * i] = kHex[bytes[i] >> 4];
      id[2 * i + 1] = kHex[bytes[i] & 15];
    }
  } while (id.find_first_not_of('0') == std::string::npos);
  return id;
}

bool lower_hex(std::string_view s, size_t digits) {
  return s.size() == digits &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }) &&
         s.find_first_not_of('0') != std::string_view::npos;
}

}  // namespace

TraceContext TraceContext::new_trace() { return TraceContext{new_trace_id(), ""}; }

std::string new_trace_id() { return random_hex(32); }
std::string new_span_id() { return random_hex(16); }

std::optional<TraceContext> parse_traceparent(std::string_view header) {
  // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55 characters.
  while (!header.empty() && (header.front() == ' ' || header.front() == '\t')) header.remove_prefix(1);
  while (!header.empty() && (header.back() == ' ' || header.back() == '\t')) header.remove_suffix(1);
  if (header.size() < 55 || header[2] != '-' || header[35] != '-' || header[52] != '-') return std::nullopt;
  std::string_view version = header.substr(0, 2), flags = header.substr(53, 2);
  auto hex = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  };
  if (!hex(version) || version == "ff" || !hex(flags)) return std::nullopt;
  // Version 00 is exactly 55 characters; a later version may add fields after a dash.
  if (header.size() > 55 && (version == "00" || header[55] != '-')) return std::nullopt;
  std::string_view trace_id = header.substr(3, 32), span_id = header.substr(36, 16);
  if (!lower_hex(trace_id, 32) || !lower_hex(span_id, 16)) return std::nullopt;
  int flag_bits = std::stoi(std::string(flags), nullptr, 16);
  return TraceContext{std::string(trace_id), std::string(span_id), (flag_bits & 1) != 0};
}

std::string format_traceparent(std::string_view trace_id, std::string_view span_id, bool sampled) {
  std::string out;
  out.reserve(55);
  out.append("00-").append(trace_id).append("-").append(span_id).append(sampled ? "-01" : "-00");
  return out;
}

}  // namespace engine
