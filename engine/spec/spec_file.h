#pragma once
// A file of the workflow format's family (a workflow, an evaluation file, a test file) named on the command line:
// its text, and the folder its relative paths resolve against.
#include <filesystem>
#include <string>

namespace engine::spec {

struct SpecFile {
  std::string text;
  std::filesystem::path dir;
};

// It may be a pipe. Throws Error "io.*" naming the file.
SpecFile read_spec_file(const std::filesystem::path& file);

}  // namespace engine::spec
