#pragma once
// What a tool may reach outside its sandbox, as the workflow grants it (`allow:` beside a Lua tool, a lua step, a
// Lua parser or a built-in): HTTP under URL prefixes and files under roots. Nothing is granted by default, and a
// tool holds only its own grants: they are given to each call, never stored in a Lua state another tool could be
// handed (docs/security.md, "Grants").
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/limits.h"
#include "engine/net/url.h"

namespace engine::tools {

struct HttpGrant {
  std::string written;  // the prefix as the workflow gives it, for messages
  net::Url prefix;      // scheme, host and port must equal; the path must lie under (net::path_under)
  std::vector<std::string> methods;  // capital letters
  // Added to every request under the grant; the tool never sees them, nor can it set a header of the same name.
  std::vector<std::pair<std::string, std::string>> headers;
  size_t max_response_bytes = limits::kGrantBytes;
};

struct FileGrant {
  std::filesystem::path root;  // an existing folder, absolute
  std::string written;         // as the workflow gives it, for messages
  bool write = false;
  size_t max_file_bytes = limits::kGrantBytes;  // a read or a write
};

struct Grants {
  std::vector<HttpGrant> http;
  std::vector<FileGrant> files;
  bool empty() const { return http.empty() && files.empty(); }
};

}  // namespace engine::tools
