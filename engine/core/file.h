#pragma once
// Reading the files a workflow or a command names. Which files a workflow may name is FileScope's business
// (file_scope.h); this only reads, bounded, with clear errors.
#include <cstddef>
#include <filesystem>
#include <string>

namespace engine {

// Workflows, templates, Lua scripts, --inputs and --vars files are kilobytes; this bound keeps /dev/zero or a
// mistaken gigabyte file from exhausting memory.
inline constexpr size_t kMaxFileBytes = size_t{16} << 20;

enum class Pipes { Refused, Allowed };

// Reads a whole regular file, never a device or a directory; a pipe only when allowed: a file named on the command
// line may be one (`--inputs /dev/stdin`), a file a workflow names may not (a FIFO nobody writes to would block the
// load for ever). Throws Error "io.read_failed" naming the path when it cannot, "io.too_large" past `max_bytes`.
std::string read_file(const std::filesystem::path& path, size_t max_bytes = kMaxFileBytes, Pipes pipes = Pipes::Refused);

}  // namespace engine
