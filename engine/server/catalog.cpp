#include "engine/server/catalog.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "engine/app/durable_runs.h"
#include "engine/core/error.h"

namespace engine::server {
namespace fs = std::filesystem;
namespace {

bool is_workflow_file(const fs::path& p) {
  std::string ext = p.extension().string();
  return (ext == ".yaml" || ext == ".yml") && p.stem().extension().empty();
}

// The files a path names, each with whether it was named itself (then a failure to load is fatal).
std::vector<std::pair<std::string, bool>> files_of(const std::vector<std::string>& paths) {
  std::vector<std::pair<std::string, bool>> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      out.emplace_back(path, true);
      continue;
    }
    std::vector<std::string> found;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && is_workflow_file(it->path())) found.push_back(it->path().string());
    std::sort(found.begin(), found.end());
    for (auto& f : found) out.emplace_back(std::move(f), false);
  }
  return out;
}

}  // namespace

std::shared_ptr<const Catalog> Catalog::load(const std::vector<std::string>& paths, const app::LoadOptions& options,
                                             std::vector<std::string>& problems, const Catalog* previous) {
  auto catalog = std::make_shared<Catalog>();
  for (const auto& [file, named] : files_of(paths)) {
    ServedWorkflow served{"", file, nullptr};
    try {
      served.executor = app::load_executor(file, options);
      served.source = app::workflow_source(file);
      served.files = app::workflow_file_digests(*served.executor, served.source);
      struct stat written {};
      if (::stat(file.c_str(), &written) == 0) served.created = static_cast<long>(written.st_mtime);
    } catch (const Error& e) {
      const ServedWorkflow* kept = nullptr;
      if (previous)
        for (const auto& w : previous->workflows_)
          if (w.file == file) kept = &w;
      if (named && !previous) throw;
      problems.push_back(e.formatted() + (kept ? " (the workflow loaded before is served still)" : " (not served)"));
      if (!kept) continue;
      served = *kept;
    }
    if (served.name.empty()) served.name = served.executor->name();
    if (served.name.empty()) served.name = fs::path(file).stem().string();
    if (catalog->find(served.name))
      throw Error(ErrorKind::ServeDuplicate, "two workflows are named '" + served.name + "' (" + file + " and " +
                                         catalog->find(served.name)->file + "); a served workflow is found by its name");
    catalog->workflows_.push_back(std::move(served));
  }
  if (catalog->workflows_.empty() && !paths.empty()) {  // none named at all: `engine ui` shows runs, serves nothing
    if (problems.empty())
      throw Error(ErrorKind::ServeNoWorkflows, "no workflow to serve: give workflow files, or folders that hold some");
    // Each was left out for a reason the user must see: the server stops before its warnings are printed.
    std::string why;
    for (const auto& p : problems) why += "\n" + p;
    throw Error(ErrorKind::ServeNoWorkflows, "no workflow to serve: none of those found loads:" + why);
  }
  return catalog;
}

const ServedWorkflow* Catalog::find(std::string_view name) const {
  for (const auto& w : workflows_)
    if (w.name == name) return &w;
  return nullptr;
}

}  // namespace engine::server
