#pragma once
// Searching a folder of documents, for the search_docs tool: keyword search over an FTS5 index now
// (store/document_index.h); search by embeddings through the provider's /v1/embeddings endpoint is a later
// implementation of the same interface.
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/net/io_threads.h"
#include "engine/store/document_index.h"
#include "engine/tools/file_access.h"

namespace engine::tools {

class DocumentSearch {
 public:
  virtual ~DocumentSearch() = default;
  // The best `limit` passages for `query`, words as a person or a model writes them. Throws Error.
  virtual std::vector<store::DocumentHit> search(const std::string& query, size_t limit) const = 0;
};

// Text, Markdown and HTML files under a files grant's root, indexed with FTS5 in `index_file` (":memory:" for an
// index kept in memory). The index is brought up to date at the first search and then, when files changed, at a
// search at least kRecheck after the last look: a look stats every file, a query costs a few milliseconds.
class KeywordSearch : public DocumentSearch {
 public:
  static constexpr std::chrono::seconds kRecheck{2};

  // `io`: where a search from a fiber does its SQLite work, so the fiber's thread goes on with other runs (null:
  // on the caller's thread, as an ordinary thread's search always is).
  KeywordSearch(std::shared_ptr<const FileAccess> files, std::string index_file,
                std::shared_ptr<net::IoThreads> io = nullptr);

  std::vector<store::DocumentHit> search(const std::string& query, size_t limit) const override;
  // Looks at the folder now and indexes what changed (engine index).
  store::DocumentIndex::Changes refresh() const;
  const std::string& index_file() const { return index_file_; }

  // Whether a file is one of the documents: Markdown, text, reStructuredText, AsciiDoc or HTML, not hidden.
  static bool is_document(const std::string& path);

 private:
  store::DocumentIndex& index() const;  // opened at first use

  std::shared_ptr<const FileAccess> files_;
  std::string index_file_;
  std::shared_ptr<net::IoThreads> io_;
  mutable std::mutex mutex_;  // the index's opening and refreshes
  mutable std::unique_ptr<store::DocumentIndex> index_;
  mutable std::chrono::steady_clock::time_point checked_{};
};

// Where search_docs keeps the index of `root` when the workflow names no file: `.engine/index/` in the workflow's
// folder, named for the root and a hash of its path.
std::filesystem::path default_index_file(const std::filesystem::path& workflow_dir, const std::filesystem::path& root);

}  // namespace engine::tools
