#pragma once
// The folders besides a workflow's own that its files (Lua tools, templates, recordings) may come from.
#include <filesystem>
#include <vector>

namespace engine::spec {

// In order: ENGINE_PATH (colon-separated), then the engine's shipped plugins and templates beside its executable
// (installed: <prefix>/share/engine/{plugins,templates}; a build tree: <build>/share/engine/..., which the build
// links to the source folders).
std::vector<std::filesystem::path> default_search_path();

}  // namespace engine::spec
