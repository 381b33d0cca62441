// A server-sent event stream split at every point the first byte chooses: the events must be the same however the
// bytes arrive (the oracle is the same stream fed whole), and a line or event past its bound is an engine::Error.
#include <vector>

#include "engine/net/sse_parser.h"
#include "fuzz/fuzz_support.h"

namespace {

std::string events_of(std::string_view bytes, size_t step) {
  std::string out;
  engine::net::SseParser parser([&](const engine::net::SseEvent& e) {
    out += e.event + "\x1f" + e.data + "\x1e";
  });
  try {
    for (size_t i = 0; i < bytes.size(); i += step) parser.feed(bytes.substr(i, step));
  } catch (const engine::Error& e) {
    out += std::string("error: ") + e.what();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view bytes = engine::fuzz::as_text(data + 1, size - 1);
  size_t step = data[0] % 7 + 1;
  std::string whole = events_of(bytes, bytes.size() + 1);
  std::string pieces = events_of(bytes, step);
  if (whole != pieces) engine::fuzz::mismatch("events differ when fed in pieces of " + std::to_string(step), pieces, whole);
  return 0;
}
