#pragma once
// Durations as the trace, the results and `--json` report them: milliseconds to the microsecond. Whole
// milliseconds made a scripted run, a template step or a tool call read 0.
#include <chrono>
#include <cstdio>
#include <string>

namespace engine {

inline double elapsed_ms(std::chrono::steady_clock::time_point since,
                         std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(now - since).count()) / 1000.0;
}

// For people: "0.4 ms" below ten, "12 ms" above; enough to tell what took no time from what waited.
inline std::string milliseconds_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 10 ? "%.1f ms" : "%.0f ms", ms);
  return buf;
}

}  // namespace engine
