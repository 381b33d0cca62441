#pragma once
// Reading the files a workflow or a command names. Which files a workflow may name is FileScope's business
// (file_scope.h); this only reads, bounded, with clear errors.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/limits.h"

namespace engine {

// An open file descriptor, closed when it goes (RAII); movable, not copyable.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.release()) {}
  FileDescriptor& operator=(FileDescriptor&& o) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// Writes all of `text` (retrying short writes and EINTR); false on an error, with errno set.
bool write_fully(int fd, std::string_view text);

// "WHAT 'FILE': the system's reason" from errno: the Error of a file operation that failed.
Error file_error(const std::string& what, const std::filesystem::path& file, ErrorKind kind = ErrorKind::IoWriteFailed);

// A new version of a file, written beside it and renamed over it by commit(): a reader sees the old file or the new
// one, never half of one. Dropped without commit() (an exception), the new file is removed and the old one stays.
// The file beside it has a name nobody could guess and is made only if nothing has that name (O_EXCL): a symlink
// planted beside the target can never redirect the write to another file. The old file's permissions are kept.
// A target that is a terminal, a pipe or a device (`--junit /dev/full`), or one of the process's own descriptors
// (`/dev/stdout`, `/dev/fd/N`), is written in place, as a shell's `>` writes it, never replaced by a file; a FIFO
// with no reader is refused rather than waited on. Every write is checked: a device that takes none is an error.
class FileReplacement {
 public:
  explicit FileReplacement(std::filesystem::path path);  // throws Error "io.write_failed"
  ~FileReplacement();
  FileReplacement(const FileReplacement&) = delete;
  FileReplacement& operator=(const FileReplacement&) = delete;

  void write(std::string_view text);  // throws Error "io.write_failed"
  void commit();                      // to the disk, then over the old file
  // The new file's descriptor, open for reading and writing: to lock it before commit() (the lock then holds on
  // the file under its final name from the first instant), or to keep using the file after.
  int descriptor() const { return fd_.get(); }
  FileDescriptor release_descriptor() { return std::move(fd_); }

 private:
  std::filesystem::path path_;
  std::filesystem::path temp_;  // empty when the target is written in place
  FileDescriptor fd_;
  bool committed_ = false;
};

enum class Pipes { Refused, Allowed };

// Reads a whole regular file, never a device or a directory; a pipe only when allowed: a file named on the command
// line may be one (`--inputs /dev/stdin`), a file a workflow names may not (a FIFO nobody writes to would block the
// load for ever). Throws Error "io.read_failed" naming the path when it cannot, "io.too_large" past `max_bytes`.
std::string read_file(const std::filesystem::path& path, size_t max_bytes = limits::kFileBytes, Pipes pipes = Pipes::Refused);

// The same file, with the same checks and bound, read a buffer at a time: for a parser that need not hold the whole
// text beside what it builds from it (a large --inputs document).
class FileReader {
 public:
  FileReader(std::filesystem::path path, size_t max_bytes = limits::kFileBytes, Pipes pipes = Pipes::Refused);
  // The next bytes of the file; empty at its end. Throws as read_file does.
  std::string_view next();
  // The regular file's size when opened (0 for a pipe): what a caller may reserve.
  size_t size_hint() const { return size_hint_; }

 private:
  std::filesystem::path path_;
  size_t max_bytes_;
  FileDescriptor fd_;
  size_t size_hint_ = 0;
  size_t total_ = 0;
  char buf_[65536];
};

}  // namespace engine
