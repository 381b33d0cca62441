#include "engine/tools/document_search.h"

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/tools/html_text.h"

namespace engine::tools {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool KeywordSearch::is_document(const std::string& path) {
  if (path.empty() || path[0] == '.' || path.find("/.") != std::string::npos) return false;
  std::string lower = path;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* ext : {".md", ".markdown", ".txt", ".text", ".rst", ".adoc", ".html", ".htm"})
    if (ends_with(lower, ext)) return true;
  return false;
}

KeywordSearch::KeywordSearch(std::shared_ptr<const FileAccess> files, std::string index_file,
                             std::shared_ptr<net::IoThreads> io)
    : files_(std::move(files)), index_file_(std::move(index_file)), io_(std::move(io)) {}

store::DocumentIndex& KeywordSearch::index() const {
  if (index_) return *index_;
  std::string source = files_->grants().front().root.string();
  // The index is a cache: where it cannot be kept (a read-only folder), it is kept in memory for this process.
  if (index_file_ != ":memory:") {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(index_file_).parent_path(), ec);
    try {
      index_ = std::make_unique<store::DocumentIndex>(index_file_, source);
    } catch (const Error&) {
      index_.reset();
    }
  }
  if (!index_) index_ = std::make_unique<store::DocumentIndex>(":memory:", source);
  return *index_;
}

store::DocumentIndex::Changes KeywordSearch::refresh() const {
  std::lock_guard lock(mutex_);
  std::vector<store::IndexedDocument> present;
  files_->walk("", limits::kIndexedDocuments, [&](const FileEntry& file, int) {
    if (is_document(file.name)) present.push_back(store::IndexedDocument{file.name, file.modified_ns, file.size});
    return true;
  }, false);
  auto changes = index().refresh(present, [&](const store::IndexedDocument& doc) -> std::optional<std::string> {
    std::string text;
    try {
      text = files_->read(doc.path);
    } catch (const Error&) {
      return std::nullopt;  // gone, grown past the grant's bound, or not a regular file any more: not a document
    }
    if (text.find('\0') != std::string::npos) return std::nullopt;
    std::string lower = doc.path;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ends_with(lower, ".html") || ends_with(lower, ".htm") ? html_to_text(text) : text;
  });
  checked_ = std::chrono::steady_clock::now();
  return changes;
}

std::vector<store::DocumentHit> KeywordSearch::search(const std::string& query, size_t limit) const {
  auto terms = store::query_terms(query);
  if (terms.empty()) throw Error(ErrorKind::ToolError, "the query has no word to search for");
  std::vector<store::DocumentHit> hits;
  auto look_up = [&] {
    bool stale;
    {
      std::lock_guard lock(mutex_);
      stale = !index_ || std::chrono::steady_clock::now() - checked_ >= kRecheck;
    }
    if (stale) refresh();
    std::lock_guard lock(mutex_);
    hits = index().search_any(terms, limit);
  };
  // SQLite blocks its thread (an index brought up to date may take seconds): a fiber's goes to the I/O threads.
  if (io_) io_->blocking().run(look_up);
  else look_up();
  return hits;
}

std::filesystem::path default_index_file(const std::filesystem::path& workflow_dir, const std::filesystem::path& root) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across builds, unlike std::hash
  for (unsigned char c : root.string()) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  std::string name = root.filename().string();
  if (name.empty()) name = "root";
  return workflow_dir / ".engine" / "index" / (name + "-" + std::string(hex, 8) + ".sqlite");
}

}  // namespace engine::tools
