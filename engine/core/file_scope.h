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
  // Roots are resolved once here; a root that does not exist is dropped. `search`: the folders a bare name is looked
  // for in after its own folder, in order (the search path); each is a root too.
  explicit FileScope(const std::vector<std::filesystem::path>& roots,
                     const std::vector<std::filesystem::path>& search = {});

  // `name` resolved against `base` when relative, symlinks followed. Throws Error "io.outside_scope" when the file
  // lies outside every root or under a system folder; the file itself need not exist (the caller reports that).
  std::filesystem::path resolve(const std::filesystem::path& base, const std::filesystem::path& name) const;
  // Where the file a workflow names is: `name` against `base`, then, when it is a bare name (relative, not starting
  // with ./ or ../), in each search folder, the first place it exists winning. When it exists nowhere, `path` is the
  // first place and `exists` false. Throws as resolve() does for a place outside the scope.
  struct Found {
    std::filesystem::path path;
    bool exists = false;
    std::vector<std::filesystem::path> looked;  // the folders tried, in order
  };
  Found find(const std::filesystem::path& base, const std::filesystem::path& name) const;

  // Whether an already resolved path is readable under this scope.
  bool allows(const std::filesystem::path& resolved) const;

  const std::vector<std::filesystem::path>& roots() const { return roots_; }

 private:
  std::vector<std::filesystem::path> roots_;   // canonical
  std::vector<std::filesystem::path> search_;  // canonical, in order
};

// "'x.lua' not found in /a, /b or /c": what an error says of a file found in none of the places `looked`.
std::string not_found_message(const std::filesystem::path& name, const std::vector<std::filesystem::path>& looked);

}  // namespace engine
