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

FileScope::FileScope(const std::vector<fs::path>& roots, const std::vector<fs::path>& search) {
  auto add = [](std::vector<fs::path>& to, const fs::path& folder) {
    std::error_code ec;
    fs::path c = fs::canonical(folder, ec);
    if (!ec && std::find(to.begin(), to.end(), c) == to.end()) to.push_back(std::move(c));
  };
  for (const auto& r : roots) add(roots_, r);
  for (const auto& s : search) {
    add(roots_, s);
    add(search_, s);
  }
}

FileScope::Found FileScope::find(const fs::path& base, const fs::path& name) const {
  Found found{resolve(base, name), false, {resolved(base)}};
  std::error_code ec;
  found.exists = fs::exists(found.path, ec);
  auto first = name.begin();
  bool bare = name.is_relative() && !name.empty() && *first != "." && *first != "..";
  if (found.exists || !bare) return found;
  for (const auto& folder : search_) {
    if (std::find(found.looked.begin(), found.looked.end(), folder) != found.looked.end()) continue;
    found.looked.push_back(folder);
    fs::path candidate = resolve(folder, name);
    if (fs::exists(candidate, ec)) return {candidate, true, std::move(found.looked)};
  }
  return found;
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
  throw Error(ErrorKind::IoOutsideScope, "'" + name.string() + "' resolves to '" + path.string() + "', " + why);
}

std::string not_found_message(const fs::path& name, const std::vector<fs::path>& looked) {
  std::string where;
  for (size_t i = 0; i < looked.size(); ++i)
    where += (i == 0 ? "" : i + 1 == looked.size() ? " or " : ", ") + looked[i].string();
  return "'" + name.string() + "' not found in " + where;
}

}  // namespace engine
