#include "engine/tools/file_access.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <random>

#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::tools {
namespace {


std::string quoted(std::string_view path) { return quote_excerpt(path, 120); }

// The names of a path as a tool gives it, refused as written when it could never be under a root.
std::vector<std::string> names_of(std::string_view path) {
  if (path.find('\0') != std::string_view::npos) throw Error(ErrorKind::ToolRefused, "the path " + quoted(path) + " has a NUL byte");
  if (path.size() > limits::kPathBytes)
    throw Error(ErrorKind::ToolRefused, "the path " + quoted(path) + " is longer than " + std::to_string(limits::kPathBytes) + " bytes");
  if (!path.empty() && path[0] == '/')
    throw Error(ErrorKind::ToolRefused, "the path " + quoted(path) + " is absolute: paths are relative to the granted root");
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view name = path.substr(start, end - start);
    if (name == "..") throw Error(ErrorKind::ToolRefused, "the path " + quoted(path) + " has a '..': paths stay under the granted root");
    if (name.size() > limits::kNameBytes)
      throw Error(ErrorKind::ToolRefused, "the path " + quoted(path) + " has a name longer than 255 bytes");
    if (!name.empty() && name != ".") names.emplace_back(name);
    start = end + 1;
  }
  return names;
}

std::string type_of(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "dir";
  if (S_ISLNK(mode)) return "link";
  return "other";
}

FileEntry entry_of(std::string name, const struct stat& st) {
  return FileEntry{std::move(name), type_of(st.st_mode), static_cast<uint64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

// Where a path led: the folder holding its last name (open as O_PATH), that name, and what lies there (lstat), or
// why it led nowhere. `err` is errno's (ENOENT: nothing there); `refused` a reason the grant forbids it.
struct Resolution {
  FileDescriptor parent;
  std::string name;  // "." when the path ends on a folder reached by its own name
  struct stat st {};
  int err = 0;
  std::string refused;
  bool ok() const { return err == 0 && refused.empty(); }
};

FileDescriptor open_path(int at, const char* name, int flags = 0) {
  return FileDescriptor(openat(at, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | flags));
}

// Walks `names` from `root` one at a time, never opening "..": a ".." from a symlink's target goes back to a folder
// already walked through, and past the root it is refused. Symlinks are followed (the last one only with
// `follow_last`) while they stay under the root; with `make_dirs` missing folders are made.
Resolution resolve(int root, std::vector<std::string> given, bool follow_last, bool make_dirs) {
  Resolution r;
  std::vector<FileDescriptor> chain;  // the folders walked through below the root
  std::deque<std::string> pending(std::make_move_iterator(given.begin()), std::make_move_iterator(given.end()));
  auto here = [&] { return chain.empty() ? root : chain.back().get(); };
  auto finish_here = [&] {
    r.parent = open_path(here(), ".", O_DIRECTORY);
    r.name = ".";
    if (!r.parent.valid() || fstat(r.parent.get(), &r.st) != 0) r.err = errno;
    return std::move(r);
  };
  int links = 0;
  while (!pending.empty()) {
    std::string name = std::move(pending.front());
    pending.pop_front();
    bool last = pending.empty();
    if (name.empty() || name == ".") {
      if (last) return finish_here();
      continue;
    }
    if (name == "..") {
      if (chain.empty()) {
        r.refused = "leads out of the root through a symlink";
        return r;
      }
      chain.pop_back();
      if (last) return finish_here();
      continue;
    }
    FileDescriptor fd = open_path(here(), name.c_str());
    if (!fd.valid() && errno == ENOENT && make_dirs) {
      if (mkdirat(here(), name.c_str(), 0755) != 0 && errno != EEXIST) {
        r.err = errno;
        return r;
      }
      fd = open_path(here(), name.c_str());
    }
    struct stat st {};
    if (!fd.valid() || fstat(fd.get(), &st) != 0) {
      r.err = errno;
      return r;
    }
    if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
      if (++links > limits::kSymlinks) {
        r.refused = "passes more than 40 symlinks (a loop?)";
        return r;
      }
      char target[4096];
      ssize_t n = readlinkat(fd.get(), "", target, sizeof target);
      if (n < 0) {
        r.err = errno;
        return r;
      }
      if (n == static_cast<ssize_t>(sizeof target)) {
        r.refused = "has a symlink whose target is too long";
        return r;
      }
      if (n == 0 || target[0] == '/') {
        r.refused = "has a symlink to an absolute path, outside the root";
        return r;
      }
      std::string_view t(target, static_cast<size_t>(n));
      std::vector<std::string> parts;
      for (size_t start = 0; start <= t.size();) {
        size_t end = std::min(t.find('/', start), t.size());
        parts.emplace_back(t.substr(start, end - start));
        start = end + 1;
      }
      pending.insert(pending.begin(), parts.begin(), parts.end());
      continue;
    }
    if (last) {
      r.parent = open_path(here(), ".", O_DIRECTORY);
      if (!r.parent.valid()) {
        r.err = errno;
        return r;
      }
      r.name = std::move(name);
      r.st = st;
      return r;
    }
    if (!S_ISDIR(st.st_mode)) {
      r.err = ENOTDIR;
      return r;
    }
    chain.push_back(std::move(fd));
  }
  return finish_here();
}

// Opens what a resolution found, as it found it: O_NOFOLLOW and the same inode, so a symlink swapped in meanwhile
// opens nothing. O_NONBLOCK: a fifo swapped in must not block the open.
FileDescriptor reopen(const Resolution& r, int flags) {
  FileDescriptor fd(openat(r.parent.get(), r.name.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || fstat(fd.get(), &st) != 0) return FileDescriptor();
  if (st.st_dev != r.st.st_dev || st.st_ino != r.st.st_ino) {
    errno = EAGAIN;
    return FileDescriptor();
  }
  return fd;
}

std::string reason(int err) { return std::strerror(err); }

// An open folder's listing (RAII): closedir closes the descriptor it was opened on too.
struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};
using OpenDir = std::unique_ptr<DIR, DirCloser>;

// The listing of the folder `fd` (taken: closed with the listing, or here when it cannot be listed).
OpenDir open_dir(FileDescriptor fd) {
  DIR* d = fd.valid() ? fdopendir(fd.get()) : nullptr;
  if (d) fd.release();
  return OpenDir(d);
}

}  // namespace

// The first root that holds `path`, with where it led; nothing when none does (`looked` then names them). A path
// refused, or one the system cannot walk, in the first root that has it is an error: "cannot VERB ...".
std::optional<FileAccess::Located> FileAccess::locate(const std::vector<std::string>& names, std::string_view path,
                                                      const char* verb, std::vector<std::string>& looked) const {
  if (roots_.empty()) throw Error(ErrorKind::ToolRefused, "this tool has no files grant (give it one with allow: files:)");
  for (const auto& root : roots_) {
    Resolution r = resolve(root.fd.get(), names, true, false);
    if (r.err == ENOENT || r.err == ENOTDIR) {
      looked.push_back(root.grant.written);
      continue;
    }
    std::string where = quoted(path.empty() ? "." : path) + " under " + root.grant.written;
    if (!r.refused.empty()) throw Error(ErrorKind::ToolRefused, "the path " + where + " " + r.refused);
    if (!r.ok()) throw Error(ErrorKind::IoReadFailed, std::string("cannot ") + verb + " " + where + ": " + reason(r.err));
    return Located{&root, std::move(where), std::move(r.parent), std::move(r.name), r.st};
  }
  return std::nullopt;
}

FileAccess::FileAccess(std::vector<FileGrant> grants) : grants_(grants) {
  for (auto& g : grants) {
    FileDescriptor fd(open(g.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid())
      throw Error(ErrorKind::IoReadFailed, "the files root " + g.written + " (" + g.root.string() + ") is not a folder: " + reason(errno));
    roots_.push_back(Root{std::move(g), std::move(fd)});
  }
}

bool FileAccess::read_open(int fd, size_t max_bytes, std::string& out) {
  out.clear();
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorKind::IoReadFailed, reason(errno));
    if (n == 0) return true;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      out.append(buf, max_bytes - out.size());
      return false;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

std::string FileAccess::read(std::string_view path) const {
  auto names = names_of(path);
  std::vector<std::string> looked;
  if (auto found = locate(names, path, "read", looked)) {
    const std::string& where = found->where;
    Resolution r{std::move(found->parent), found->name, found->st};
    const Root& root = *found->root;
    if (S_ISDIR(r.st.st_mode)) throw Error(ErrorKind::IoReadFailed, "cannot read " + where + ": it is a folder (list it)");
    if (!S_ISREG(r.st.st_mode))
      throw Error(ErrorKind::ToolRefused, "the path " + where + " is not a regular file (a device, fifo or socket)");
    size_t max = root.grant.max_file_bytes;
    if (static_cast<uint64_t>(r.st.st_size) > max)
      throw Error(ErrorKind::IoTooLarge, "the file " + where + " is " + std::to_string(r.st.st_size) +
                                      " bytes, more than the grant's max_bytes (" + std::to_string(max) + ")");
    FileDescriptor fd = reopen(r, O_RDONLY);
    if (!fd.valid()) throw Error(ErrorKind::IoReadFailed, "cannot read " + where + ": " + reason(errno));
    std::string out;
    bool whole = false;
    try {
      whole = read_open(fd.get(), max, out);
    } catch (const Error& e) {
      throw Error(ErrorKind::IoReadFailed, "cannot read " + where + ": " + e.message());
    }
    if (!whole)
      throw Error(ErrorKind::IoTooLarge, "the file " + where + " grew past the grant's max_bytes (" + std::to_string(max) + ")");
    return out;
  }
  throw Error(ErrorKind::IoNotFound, "no file " + quoted(path) + " under " + join(looked, " or "));
}

std::optional<FileEntry> FileAccess::stat(std::string_view path) const {
  auto names = names_of(path);
  std::vector<std::string> looked;
  if (auto found = locate(names, path, "look at", looked)) return entry_of(names.empty() ? "." : names.back(), found->st);
  return std::nullopt;
}

std::vector<FileEntry> FileAccess::list(std::string_view path, bool* truncated) const {
  auto names = names_of(path);
  if (truncated) *truncated = false;
  std::vector<std::string> looked;
  if (auto found = locate(names, path, "list", looked)) {
    const std::string& where = found->where;
    Resolution r{std::move(found->parent), found->name, found->st};
    if (!S_ISDIR(r.st.st_mode)) throw Error(ErrorKind::IoReadFailed, "cannot list " + where + ": it is not a folder");
    OpenDir dir = open_dir(reopen(r, O_RDONLY | O_DIRECTORY));
    if (!dir) throw Error(ErrorKind::IoReadFailed, "cannot list " + where + ": " + reason(errno));
    int dir_fd = dirfd(dir.get());
    std::vector<FileEntry> out;
    while (dirent* e = readdir(dir.get())) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      if (out.size() == limits::kListEntries) {
        if (truncated) *truncated = true;
        break;
      }
      struct stat st {};
      if (fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      out.push_back(entry_of(e->d_name, st));
    }
    std::sort(out.begin(), out.end(), [](const FileEntry& a, const FileEntry& b) { return a.name < b.name; });
    return out;
  }
  throw Error(ErrorKind::IoNotFound, "no folder " + quoted(path) + " under " + join(looked, " or "));
}

void FileAccess::write(std::string_view path, std::string_view text) const {
  auto names = names_of(path);
  const Root* root = nullptr;
  for (const auto& r : roots_)
    if (r.grant.write) {
      root = &r;
      break;
    }
  if (!root)
    throw Error(ErrorKind::ToolRefused, roots_.empty() ? "this tool has no files grant (give it one with allow: files:)"
                                               : "no files grant of this tool allows writing (write: true)");
  std::string where = quoted(path) + " under " + root->grant.written;
  if (names.empty() || path.back() == '/') throw Error(ErrorKind::ToolRefused, "the path " + where + " names a folder, not a file");
  if (text.size() > root->grant.max_file_bytes)
    throw Error(ErrorKind::IoTooLarge, "writing " + std::to_string(text.size()) + " bytes to " + where +
                                    ": more than the grant's max_bytes (" + std::to_string(root->grant.max_file_bytes) + ")");
  std::string name = names.back();
  names.pop_back();
  Resolution folder = resolve(root->fd.get(), names, true, true);
  if (!folder.refused.empty()) throw Error(ErrorKind::ToolRefused, "the path " + where + " " + folder.refused);
  if (!folder.ok()) throw Error(ErrorKind::IoWriteFailed, "cannot write " + where + ": " + reason(folder.err));
  if (!S_ISDIR(folder.st.st_mode)) throw Error(ErrorKind::IoWriteFailed, "cannot write " + where + ": " + reason(ENOTDIR));
  FileDescriptor dir = folder.name == "." ? std::move(folder.parent) : reopen(folder, O_PATH | O_DIRECTORY);
  if (!dir.valid()) throw Error(ErrorKind::IoWriteFailed, "cannot write " + where + ": " + reason(errno));
  struct stat st {};
  mode_t mode = 0644;
  if (fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) throw Error(ErrorKind::ToolRefused, "the path " + where + " is a symlink: write to the file it names");
    if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::ToolRefused, "the path " + where + " is not a regular file");
    mode = st.st_mode & 0777;
  }
  // Written beside it and renamed over it: a reader sees the old file or the new one, never half of one.
  std::random_device random;
  std::string temp = ".engine-write-" + std::to_string(random()) + std::to_string(random());
  FileDescriptor fd(openat(dir.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) throw Error(ErrorKind::IoWriteFailed, "cannot write " + where + ": " + reason(errno));
  if (!write_fully(fd.get(), text) || renameat(dir.get(), temp.c_str(), dir.get(), name.c_str()) != 0) {
    int err = errno;
    unlinkat(dir.get(), temp.c_str(), 0);
    throw Error(ErrorKind::IoWriteFailed, "cannot write " + where + ": " + reason(err));
  }
}

void FileAccess::walk(std::string_view path, size_t max_files, const std::function<bool(const FileEntry&, int fd)>& visit,
                      bool open_files) const {
  auto names = names_of(path);
  if (roots_.empty()) throw Error(ErrorKind::ToolRefused, "this tool has no files grant (give it one with allow: files:)");
  size_t visited = 0;
  // Depth first in name order through open folders; symlinks are skipped, so nothing leads out.
  std::function<bool(int, const std::string&, int)> descend = [&](int dir_fd, const std::string& prefix, int depth) {
    OpenDir dir = open_dir(FileDescriptor(openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
    if (!dir) return true;
    int fd = dirfd(dir.get());
    std::vector<std::pair<std::string, struct stat>> entries;
    while (dirent* e = readdir(dir.get())) {
      if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
      struct stat st {};
      if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
        entries.emplace_back(e->d_name, st);
      if (entries.size() > 100'000) break;
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    bool go_on = true;
    for (const auto& [name, st] : entries) {
      if (!go_on || visited >= max_files) break;
      std::string rel = prefix.empty() ? name : prefix + "/" + name;
      if (S_ISDIR(st.st_mode)) {
        if (depth >= limits::kWalkDepth) continue;
        FileDescriptor sub(openat(fd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (sub.valid()) go_on = descend(sub.get(), rel, depth + 1);
        continue;
      }
      if (!open_files) {
        ++visited;
        go_on = visit(entry_of(rel, st), -1);
        continue;
      }
      FileDescriptor file(openat(fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
      struct stat now {};
      if (!file.valid() || fstat(file.get(), &now) != 0 || !S_ISREG(now.st_mode)) continue;
      ++visited;
      go_on = visit(entry_of(rel, now), file.get());
    }
    return go_on;
  };
  std::vector<std::string> looked;
  auto found = locate(names, path, "search", looked);
  if (!found) throw Error(ErrorKind::IoNotFound, "no folder " + quoted(path) + " under " + join(looked, " or "));
  Resolution r{std::move(found->parent), found->name, found->st};
  if (!S_ISDIR(r.st.st_mode)) throw Error(ErrorKind::IoReadFailed, "cannot search " + found->where + ": it is not a folder");
  FileDescriptor dir = r.name == "." ? std::move(r.parent) : reopen(r, O_PATH | O_DIRECTORY);
  if (!dir.valid()) throw Error(ErrorKind::IoReadFailed, "cannot search " + found->where + ": " + reason(errno));
  std::string prefix;
  for (const auto& n : names) prefix += (prefix.empty() ? "" : "/") + n;
  descend(dir.get(), prefix, 0);
}

}  // namespace engine::tools
