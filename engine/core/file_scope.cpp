#include "engine/core/file_scope.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine {
namespace fs = std::filesystem;
namespace {

bool is_under(const fs::path& path, const fs::path& root) {
  return std::mismatch(root.begin(), root.end(), path.begin(), path.end()).first == root.end();
}

// Kernel views of processes and devices: /proc/self/environ holds the API keys, /dev/zero never ends.
bool is_system_path(const fs::path& path) {
  for (const char* sys : {"/proc", "/dev", "/sys"})
    if (is_under(path, sys)) return true;
  return false;
}

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : out;
}

}  // namespace

FileScope::FileScope(const std::vector<fs::path>& roots) {
  for (const auto& r : roots) {
    std::error_code ec;
    fs::path c = fs::canonical(r, ec);
    if (!ec && std::find(roots_.begin(), roots_.end(), c) == roots_.end()) roots_.push_back(std::move(c));
  }
}

bool FileScope::allows(const fs::path& path) const {
  // a system folder is refused even under a root ("/", a root below /proc): nothing there is a workflow's file
  if (is_system_path(path)) return false;
  return std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& r) { return is_under(path, r); });
}

fs::path FileScope::resolve(const fs::path& base, const fs::path& name) const {
  fs::path path = resolved(name.is_absolute() ? name : base / name);
  if (allows(path)) return path;
  std::vector<std::string> where;
  for (const auto& r : roots_) where.push_back(r.string());
  std::string why = is_system_path(path) ? "a system folder no workflow may read"
                                         : "outside the folders a workflow may read (" +
                                               (where.empty() ? std::string("none") : join(where, ", ")) + ")";
  throw Error("io.outside_scope", "'" + name.string() + "' resolves to '" + path.string() + "', " + why);
}

}  // namespace engine
