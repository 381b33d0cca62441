#include "engine/core/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

std::string read_file(const std::filesystem::path& path, size_t max_bytes, Pipes pipes) {
  auto fail = [&](const std::string& why) { return Error("io.read_failed", "cannot read '" + path.string() + "': " + why); };
  // O_NONBLOCK: opening a FIFO nobody writes to must not hang; it is cleared once the file proves to be a pipe.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) throw fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail("it is a directory");
  if (S_ISFIFO(st.st_mode) && pipes == Pipes::Refused) throw fail("a pipe, where a regular file belongs");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) throw fail("not a regular file (a device or a socket)");
  if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw Error("io.too_large", "cannot read '" + path.string() + "': it is " + size_text(st.st_size) +
                                    ", more than the " + size_text(max_bytes) + " a file may have");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  std::string out;
  // The size from stat is a hint only (files under /proc report 0, a file may grow while read): the bound is on
  // the bytes actually read.
  out.reserve(S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(std::strerror(errno));
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      throw Error("io.too_large", "cannot read '" + path.string() + "': it holds more than the " +
                                      size_text(max_bytes) + " a file may have");
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace engine
