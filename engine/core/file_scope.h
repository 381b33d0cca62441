#pragma once
// Which files a workflow may read: those under its roots (its own folder, the search path), with symlinks and
// ".." resolved first, and never anything under /proc, /dev or /sys, whatever the roots. A workflow may come from
// someone else; without this, `lua: /proc/self/environ` or `{% include '../../.ssh/id_rsa' %}` would send the
// environment (API keys included) or a private key to the model, the trace and error messages.
#include <filesystem>
#include <string>
#include <vector>

namespace engine {

class FileScope {
 public:
  FileScope() = default;  // no roots: nothing may be read
  // Roots are resolved once here; a root that does not exist is dropped.
  explicit FileScope(const std::vector<std::filesystem::path>& roots);

  // `name` resolved against `base` when relative, symlinks followed. Throws Error "io.outside_scope" when the file
  // lies outside every root or under a system folder; the file itself need not exist (the caller reports that).
  std::filesystem::path resolve(const std::filesystem::path& base, const std::filesystem::path& name) const;
  // Whether an already resolved path is readable under this scope.
  bool allows(const std::filesystem::path& resolved) const;

  const std::vector<std::filesystem::path>& roots() const { return roots_; }

 private:
  std::vector<std::filesystem::path> roots_;  // canonical
};

}  // namespace engine
