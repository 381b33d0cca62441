#pragma once
// The files of `engine init`'s starter projects, compiled in from engine/app/starters/ (by CMake, into
// starter_files.cpp) so the engine makes a project wherever it is installed, with nothing else beside it.
#include <span>
#include <string_view>

namespace engine::app {

struct StarterFile {
  std::string_view path;  // under engine/app/starters/: common/... (every kind's) or KIND/...
  std::string_view text;
};

std::span<const StarterFile> starter_files();

}  // namespace engine::app
