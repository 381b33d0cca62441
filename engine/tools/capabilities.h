#pragma once
// What a tool's grants open, ready for its calls: an HttpAccess when it may send requests, a FileAccess when it may
// read or write files. Built once per tool and shared by its runs; a tool without grants holds neither.
#include <memory>
#include <string>
#include <vector>

#include "engine/tools/file_access.h"
#include "engine/tools/grants.h"
#include "engine/tools/http_access.h"

namespace engine::tools {

struct Capabilities {
  std::shared_ptr<const HttpAccess> http;
  std::shared_ptr<const FileAccess> files;
  // Where a file tool's blocking work goes when its call runs on a fiber (search_docs' index); may be null.
  std::shared_ptr<net::IoThreads> io;

  // Throws FileAccess's Error for a root that is not a folder. `secrets` and `io`: as HttpAccess takes them.
  static Capabilities granted(Grants grants, std::vector<std::string> secrets,
                              std::shared_ptr<net::IoThreads> io = nullptr);
  bool empty() const { return !http && !files; }
};

inline Capabilities Capabilities::granted(Grants grants, std::vector<std::string> secrets,
                                          std::shared_ptr<net::IoThreads> io) {
  Capabilities c;
  if (!grants.http.empty())
    c.http = std::make_shared<const HttpAccess>(std::move(grants.http), std::move(secrets), io);
  if (!grants.files.empty()) c.files = std::make_shared<const FileAccess>(std::move(grants.files));
  c.io = std::move(io);
  return c;
}

}  // namespace engine::tools
