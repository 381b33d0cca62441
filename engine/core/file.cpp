#include "engine/core/file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace engine {

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("io.read_failed", "cannot read '" + path.string() + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("io.read_failed", "cannot read '" + path.string() + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace engine
