#include "engine/spec/search_path.h"

#include <cstdlib>
#include <string_view>

namespace engine::spec {

std::vector<std::filesystem::path> default_search_path() {
  namespace fs = std::filesystem;
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
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return out;
  for (const fs::path& share : {exe.parent_path().parent_path() / "share/engine", exe.parent_path() / "share/engine"})
    for (const char* sub : {"plugins", "templates"})
      if (fs::is_directory(share / sub, ec)) out.push_back(share / sub);
  return out;
}

}  // namespace engine::spec
