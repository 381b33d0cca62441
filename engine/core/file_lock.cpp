#include "engine/core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>

#include "engine/core/error.h"

namespace engine {

bool try_lock(int fd, LockMode mode) {
  int op = (mode == LockMode::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  while (::flock(fd, op) != 0) {
    if (errno == EINTR) continue;
    return errno != EWOULDBLOCK;  // no locks on this file system: nobody to wait for
  }
  return true;
}

std::optional<FileDescriptor> open_locked(const std::filesystem::path& path, int flags, LockMode mode,
                                          unsigned permissions) {
  if (mode == LockMode::Exclusive) flags |= O_NOFOLLOW;
  for (int attempt = 0;; ++attempt) {
    FileDescriptor fd(::open(path.c_str(), flags | O_CLOEXEC, permissions));
    if (!fd.valid() && errno == ELOOP && mode == LockMode::Exclusive)
      throw Error(ErrorKind::IoWriteFailed, "'" + path.string() + "' is a symbolic link; name the file it points to");
    if (!fd.valid()) throw file_error("cannot open", path, flags & (O_WRONLY | O_RDWR) ? ErrorKind::IoWriteFailed : ErrorKind::IoReadFailed);
    if (!try_lock(fd.get(), mode)) return std::nullopt;
    // A writer that replaced the file renamed a new one over the name after this open: lock that one instead.
    struct stat held {}, named {};
    if (::fstat(fd.get(), &held) != 0) throw file_error("cannot read", path, ErrorKind::IoReadFailed);
    if (::stat(path.c_str(), &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino) return fd;
    if (attempt == 100) throw Error(ErrorKind::IoReadFailed, "'" + path.string() + "' keeps being replaced while it is opened");
  }
}

}  // namespace engine
