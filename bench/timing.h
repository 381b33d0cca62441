#pragma once
// What the benchmarks share for timing: the median of repeated calls, which a busy machine's outliers do not move.
#include <algorithm>
#include <chrono>
#include <vector>

namespace engine::bench {

// Median microseconds of `fn` over `rounds` calls.
template <class F>
double median_us(int rounds, F fn) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> t;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace engine::bench
