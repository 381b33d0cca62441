#pragma once
// The folders besides a workflow's own that its files (Lua tools, templates, recordings) may come from.
#include <filesystem>
#include <string>
#include <vector>

namespace engine::spec {

// In order: ENGINE_PATH (colon-separated), then the engine's shipped plugins and templates beside its executable
// (installed: <prefix>/share/engine/{plugins,templates}; a build tree: <build>/share/engine/..., which the build
// links to the source folders).
std::vector<std::filesystem::path> default_search_path();

// The folders a workflow named by a bare name on the command line is looked for in after the current folder:
// ENGINE_PATH's folders, then the shipped examples (<prefix>/share/engine/workflows).
std::vector<std::filesystem::path> workflow_search_path();

// The folder of the shipped JSON Schemas (<prefix>/share/engine/schema, or a build tree's), or an empty path.
std::filesystem::path shipped_schema_folder();
// The folder of the documentation (<prefix>/share/engine/docs, or a build tree's link to docs/), or an empty path.
std::filesystem::path shipped_docs_folder();

// The names (NAME of NAME.yaml) of the workflows on workflow_search_path(), sorted, each once: what a bare name may
// be besides a file in the current folder, and what shell completion offers.
std::vector<std::string> installed_workflow_names();

// The file a command's workflow argument names. A name that is a file, or that has a folder in it, is taken as it
// is. A bare name (`calculator`) is looked for as NAME, NAME.yaml and NAME.yml in the current folder, then on
// workflow_search_path(). Throws Error "io.not_found" listing the folders looked in, with the nearest name found.
std::filesystem::path find_workflow_file(const std::string& name);

}  // namespace engine::spec
