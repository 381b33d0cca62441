#include "engine/app/document_indexes.h"

#include <chrono>

#include "engine/assemble/build_grants.h"
#include "engine/core/error.h"
#include "engine/spec/search_path.h"
#include "engine/tools/document_search.h"

namespace engine::app {
namespace {

IndexReport index_into(const std::filesystem::path& root, const std::string& written, const std::filesystem::path& file) {
  auto started = std::chrono::steady_clock::now();
  auto files = std::make_shared<const tools::FileAccess>(std::vector<tools::FileGrant>{tools::FileGrant{root, written, false}});
  tools::KeywordSearch search(files, file.string());
  auto changes = search.refresh();
  IndexReport r;
  r.folder = written;
  r.file = file.string();
  r.documents = changes.added + changes.updated + changes.unchanged;
  r.added = changes.added;
  r.updated = changes.updated;
  r.removed = changes.removed;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace

Value IndexReport::to_json() const {
  return Value{{"folder", folder}, {"index", file},       {"documents", documents}, {"added", added},
               {"updated", updated}, {"removed", removed}, {"seconds", seconds}};
}

IndexReport index_folder(const std::filesystem::path& folder, const std::filesystem::path& file) {
  std::error_code ec;
  auto root = std::filesystem::canonical(folder, ec);
  if (ec || !std::filesystem::is_directory(root))
    throw Error(ErrorKind::IoReadFailed, "'" + folder.string() + "' is not a folder");
  return index_into(root, folder.string(), file.empty() ? tools::default_index_file(std::filesystem::current_path(), root) : file);
}

std::vector<IndexReport> index_workflow(const std::string& workflow) {
  spec::WorkflowSpec s = spec::load_workflow(spec::find_workflow_file(workflow), {spec::default_search_path()});
  std::vector<IndexReport> reports;
  for (const auto& t : s.tools)
    if (t.builtin.value == "search_docs" && !t.allow.files.empty())
      reports.push_back(index_into(t.allow.files.front().root_dir, t.allow.files.front().root.value,
                                   assemble::search_docs_index_file(t, s)));
  if (reports.empty()) throw Error(ErrorKind::Usage, "'" + workflow + "' has no search_docs tool to index for");
  return reports;
}

}  // namespace engine::app
