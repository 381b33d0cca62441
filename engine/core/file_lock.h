#pragma once
// Who may use a file that several engine processes could name at once (a batch's results: the batch appending,
// `engine eval` rewriting, `batch merge` reading). An flock goes with the open file, so a process that dies leaves
// none behind; a file system without locks (some NFS) lets every process through, as before.
#include <filesystem>
#include <optional>

#include "engine/core/file.h"

namespace engine {

enum class LockMode {
  Shared,     // readers: any number at once, none while a writer holds the file
  Exclusive,  // a writer: alone
};

// Opens `path` with `flags` (as open(2); never through a symlink when Exclusive, since a writer replaces the file
// by renaming over its name) and takes its lock without waiting. Nothing when another process holds a lock that
// conflicts. A file it creates has `permissions`, less the umask. When the file was replaced by rename between the
// open and the lock, it is opened again, so the lock is always on the file the name holds. Throws Error "io.*" (a
// symlink where a writer's file belongs included).
std::optional<FileDescriptor> open_locked(const std::filesystem::path& path, int flags, LockMode mode,
                                          unsigned permissions = 0644);

// Takes the lock on an open descriptor without waiting; false when another process holds a conflicting one.
bool try_lock(int fd, LockMode mode);

}  // namespace engine
