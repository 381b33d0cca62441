#include "engine/core/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string_view>

#include "engine/core/error.h"

namespace engine {
namespace {

std::string size_text(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

bool write_fully(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

FileReader::FileReader(std::filesystem::path path, size_t max_bytes, Pipes pipes)
    : path_(std::move(path)), max_bytes_(max_bytes) {
  auto fail = [&](const std::string& why) { return Error(ErrorKind::IoReadFailed, "cannot read '" + path_.string() + "': " + why); };
  // O_NONBLOCK: opening a FIFO nobody writes to must not hang; it is cleared once the file proves to be a pipe.
  fd_ = FileDescriptor(::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd_.get() < 0) throw fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) throw fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail("it is a directory");
  if (S_ISFIFO(st.st_mode) && pipes == Pipes::Refused) throw fail("a pipe, where a regular file belongs");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) throw fail("not a regular file (a device or a socket)");
  if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw Error(ErrorKind::IoTooLarge, "cannot read '" + path_.string() + "': it is " + size_text(st.st_size) +
                                    ", more than the " + size_text(max_bytes) + " a file may have");
  ::fcntl(fd_.get(), F_SETFL, ::fcntl(fd_.get(), F_GETFL) & ~O_NONBLOCK);
  // The size from stat is a hint only (files under /proc report 0, a file may grow while read): the bound is on
  // the bytes actually read.
  size_hint_ = S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0;
}

std::string_view FileReader::next() {
  for (;;) {
    ssize_t n = ::read(fd_.get(), buf_, sizeof buf_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorKind::IoReadFailed, "cannot read '" + path_.string() + "': " + std::strerror(errno));
    total_ += static_cast<size_t>(n);
    if (total_ > max_bytes_)
      throw Error(ErrorKind::IoTooLarge, "cannot read '" + path_.string() + "': it holds more than the " +
                                      size_text(max_bytes_) + " a file may have");
    return {buf_, static_cast<size_t>(n)};
  }
}

std::string read_file(const std::filesystem::path& path, size_t max_bytes, Pipes pipes) {
  FileReader reader(path, max_bytes, pipes);
  std::string out;
  out.reserve(reader.size_hint());
  for (std::string_view chunk; !(chunk = reader.next()).empty();) out.append(chunk);
  return out;
}

Error file_error(const std::string& what, const std::filesystem::path& file, ErrorKind kind) {
  return Error(kind, what + " '" + file.string() + "': " + std::strerror(errno));
}

namespace {

// The descriptor a path names when it is one of this process's own (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a
// link to one): such a path is written through that descriptor, never replaced (a rename over /dev/stdout would
// replace the system's link with a file).
std::optional<int> own_descriptor(const std::filesystem::path& path) {
  std::string named = path.string();
  char target[256];
  ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
  if (n > 0) named.assign(target, static_cast<size_t>(n));
  for (std::string_view prefix : {"/proc/self/fd/", "/dev/fd/"})
    if (named.rfind(prefix, 0) == 0) {
      std::string digits = named.substr(prefix.size());
      if (!digits.empty() && digits.size() < 6 && digits.find_first_not_of("0123456789") == std::string::npos)
        return std::stoi(digits);
    }
  return std::nullopt;
}

}  // namespace

FileReplacement::FileReplacement(std::filesystem::path path) : path_(std::move(path)) {
  if (std::optional<int> own = own_descriptor(path_)) {
    fd_ = FileDescriptor(::fcntl(*own, F_DUPFD_CLOEXEC, 0));
    if (!fd_.valid()) throw file_error("cannot write", path_);
    return;
  }
  struct stat old {};
  if (::stat(path_.c_str(), &old) == 0 && !S_ISREG(old.st_mode)) {
    if (!S_ISCHR(old.st_mode) && !S_ISFIFO(old.st_mode))
      throw Error(ErrorKind::IoWriteFailed, "cannot write '" + path_.string() + "': it is " +
                                         (S_ISDIR(old.st_mode) ? "a folder" : "not a file, a terminal or a pipe"));
    // Non-blocking to open: a FIFO nobody reads is refused at once (ENXIO) instead of waited on for ever.
    fd_ = FileDescriptor(::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd_.valid())
      throw errno == ENXIO ? Error(ErrorKind::IoWriteFailed, "cannot write '" + path_.string() + "': it is a pipe nobody reads")
                           : file_error("cannot write", path_);
    int flags = ::fcntl(fd_.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd_.get(), F_SETFL, flags & ~O_NONBLOCK);
    return;
  }
  bool existed = ::stat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  std::random_device random;
  for (int attempt = 0; !fd_.valid(); ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".%08x.new", random());
    temp_ = path_;
    temp_ += suffix;
    // O_EXCL refuses any name that exists, a symlink included (dangling or not): the file is ours, new.
    fd_ = FileDescriptor(::open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd_.valid() && (errno != EEXIST || attempt == 16)) throw file_error("cannot write", path_);
  }
  if (existed) ::fchmod(fd_.get(), old.st_mode & 07777);
}

FileReplacement::~FileReplacement() {
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void FileReplacement::write(std::string_view text) {
  if (!write_fully(fd_.get(), text)) throw file_error("cannot write", path_);
}

void FileReplacement::commit() {
  if (temp_.empty()) {  // written in place: a device or a pipe has nothing to sync or rename
    committed_ = true;
    return;
  }
  if (::fsync(fd_.get()) != 0) throw file_error("cannot write", path_);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) throw file_error("cannot replace", path_);
  committed_ = true;
}

}  // namespace engine
