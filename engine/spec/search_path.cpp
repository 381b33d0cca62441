#include "engine/spec/search_path.h"

#include <algorithm>

#include <cstdlib>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/file_scope.h"
#include "engine/core/text.h"

namespace engine::spec {

namespace fs = std::filesystem;
namespace {

std::vector<fs::path> engine_path_folders() {
  std::vector<fs::path> out;
  if (const char* env = std::getenv("ENGINE_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) out.emplace_back(dir);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  return out;
}

// The shipped folders `subs` that exist beside the executable: installed <prefix>/share/engine/..., or in a build
// tree <build>/share/engine/..., links to the source folders.
std::vector<fs::path> shipped_folders(std::initializer_list<const char*> subs) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return out;
  for (const fs::path& share : {exe.parent_path().parent_path() / "share/engine", exe.parent_path() / "share/engine"})
    for (const char* sub : subs)
      if (fs::is_directory(share / sub, ec)) out.push_back(share / sub);
  return out;
}

}  // namespace

std::vector<fs::path> default_search_path() {
  std::vector<fs::path> out = engine_path_folders();
  for (auto& folder : shipped_folders({"plugins", "templates"})) out.push_back(std::move(folder));
  return out;
}

fs::path shipped_schema_folder() {
  auto folders = shipped_folders({"schema"});
  return folders.empty() ? fs::path() : folders.front();
}

fs::path shipped_docs_folder() {
  auto folders = shipped_folders({"docs"});
  return folders.empty() ? fs::path() : folders.front();
}

std::vector<fs::path> workflow_search_path() {
  std::vector<fs::path> out = engine_path_folders();
  for (auto& folder : shipped_folders({"workflows"})) out.push_back(std::move(folder));
  return out;
}

namespace {

// NAME for each NAME.yaml in the folder (not NAME.test.yaml nor NAME.eval.yaml, which are not workflows).
void add_workflow_names(const fs::path& folder, std::vector<std::string>& names) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml" && it->path().stem().extension().empty())
      names.push_back(it->path().stem().string());
}

}  // namespace

std::vector<std::string> installed_workflow_names() {
  std::vector<std::string> names;
  for (const fs::path& folder : workflow_search_path()) add_workflow_names(folder, names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

fs::path find_workflow_file(const std::string& name) {
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos || fs::exists(name, ec)) return name;
  std::vector<fs::path> looked = {"."};
  for (auto& folder : workflow_search_path()) looked.push_back(std::move(folder));
  std::vector<std::string> known;  // the workflows there are, for "did you mean"
  for (const fs::path& folder : looked) {
    for (const char* ext : {"", ".yaml", ".yml"})
      if (fs::is_regular_file(folder / (name + ext), ec)) return folder == "." ? fs::path(name + ext) : folder / (name + ext);
    add_workflow_names(folder, known);
  }
  throw Error(ErrorKind::IoNotFound, "workflow " + not_found_message(name, looked) + " (as " + name + ", " + name +
                                  ".yaml or " + name + ".yml)" + did_you_mean(name, known));
}

}  // namespace engine::spec
