#pragma once
// What the fuzz targets share. A target's contract: any input ends in a value or an engine::Error; every other
// exception, a crash, a sanitizer report or a hang is a finding. Each target builds twice: with libFuzzer (clang,
// `make fuzz`) and with replay_main.cpp (every build), which runs the corpus and past crashes as tests.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/core/error.h"

namespace engine::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A finding the sanitizers would not report by themselves (a wrong answer): print both sides and stop.
[[noreturn]] inline void mismatch(const std::string& what, const std::string& ours, const std::string& theirs) {
  std::fprintf(stderr, "fuzz mismatch: %s\n  engine: %s\n  oracle: %s\n", what.c_str(), ours.c_str(), theirs.c_str());
  std::abort();
}

// A file of this process's own scratch folder, for targets that read files by name (a batch's data and results).
inline std::filesystem::path scratch_path(const std::string& name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("engine-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] { std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("engine-fuzz-" + std::to_string(::getpid()))); });
    return d;
  }();
  return dir / name;
}

// Runs `body`; an engine::Error is an expected outcome, anything else propagates (and ends the process).
template <class F>
void expect_value_or_error(F&& body) {
  try {
    body();
  } catch (const Error&) {
  }
}

}  // namespace engine::fuzz
