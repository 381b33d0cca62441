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
  // Whether a call may change something: a write to a granted folder, or an HTTP method other than GET, HEAD or
  // OPTIONS (a tool that can is of effect `once` unless the workflow says otherwise).
  bool can_write() const;
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

inline bool Capabilities::can_write() const {
  if (files)
    for (const auto& g : files->grants())
      if (g.write) return true;
  if (http)
    for (const auto& g : http->grants())
      for (const auto& m : g.methods)
        if (m != "GET" && m != "HEAD" && m != "OPTIONS") return true;
  return false;
}

}  // namespace engine::tools
