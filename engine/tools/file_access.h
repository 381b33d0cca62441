#pragma once
// Files for tools, under their grants' roots (grants.h): what `engine.fs` in a Lua tool and the built-in file tools
// read and write. A path is taken relative to a root and walked one name at a time from the root's open folder,
// never by the kernel from a string: `..` and absolute paths are refused as written, a symlink is followed only
// while it stays under the root (never to an absolute target), and only regular files are read or written, so
// `/dev/zero` or a fifo is refused even behind a symlink. Reads and writes are bounded by the grant.
#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/file.h"
#include "engine/tools/grants.h"

namespace engine::tools {

struct FileEntry {
  std::string name;  // for list(): the entry's name; for walk(): its path from the root
  std::string type;  // "file", "dir", "link" or "other"
  uint64_t size = 0;
  int64_t modified = 0;  // seconds since the epoch
  int64_t modified_ns = 0;  // the same in nanoseconds: two writes within a second tell apart
};

class FileAccess {
 public:

  // Opens each grant's root; throws Error "io.read_failed" naming one that is not a folder.
  explicit FileAccess(std::vector<FileGrant> grants);

  // Each throws Error "tool.refused" (a path no grant allows: absolute, `..`, a NUL byte, too long, a symlink out of
  // the root or in a loop, not a regular file; a write without `write: true`), "io.not_found", "io.too_large" (past
  // the grant's max_bytes) or "io.read_failed"/"io.write_failed" with the system's reason.
  // With several roots, read, list and stat use the first root that holds the path; write the first writable root.
  std::string read(std::string_view path) const;
  void write(std::string_view path, std::string_view text) const;  // made whole or not at all; folders made as needed
  std::vector<FileEntry> list(std::string_view path, bool* truncated = nullptr) const;  // "" or "." is the root
  std::optional<FileEntry> stat(std::string_view path) const;  // nothing when it does not exist

  // Every regular file under `path` (a folder, "" for the roots), depth first in name order, with its path from
  // the root, until `visit` returns false or `max_files` were visited; symlinks are not followed. Each file is
  // given as an open descriptor, read through read_open(); without `open_files`, as -1 (a look at sizes and times).
  void walk(std::string_view path, size_t max_files, const std::function<bool(const FileEntry&, int fd)>& visit,
            bool open_files = true) const;
  // Reads an open regular file, up to `max_bytes`; true when it was all read.
  static bool read_open(int fd, size_t max_bytes, std::string& out);

  const std::vector<FileGrant>& grants() const { return grants_; }

 private:
  struct Root {
    FileGrant grant;
    FileDescriptor fd;
  };
  struct Located {
    const Root* root;
    std::string where;      // "'path' under ROOT", for messages
    FileDescriptor parent;  // the folder holding it (O_PATH)
    std::string name;       // its name there, "." for a folder reached by its own name
    struct ::stat st;
  };
  std::optional<Located> locate(const std::vector<std::string>& names, std::string_view path, const char* verb,
                                std::vector<std::string>& looked) const;
  std::vector<Root> roots_;
  std::vector<FileGrant> grants_;
};

}  // namespace engine::tools
