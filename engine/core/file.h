#pragma once
// Reading the files a workflow names. Paths are resolved by spec/; this only reads, with clear errors.
#include <filesystem>
#include <string>

namespace engine {

// Reads a whole file; throws Error "io.read_failed" naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);

}  // namespace engine
