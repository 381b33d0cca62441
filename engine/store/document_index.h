#pragma once
// A full-text index of a folder's documents in SQLite's FTS5: BM25 ranking, snippets, the file and line of each hit.
// Documents are cut into chunks (a paragraph or a section, a few dozen lines at most) so a hit points at its line.
// The index lives in a file (a cache beside the workflow) and is brought up to date by refresh(), which reads only
// the documents that are new or changed since it last looked.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/sqlite.h"

namespace engine::store {

struct IndexedDocument {
  std::string path;  // its name in results, relative to the folder
  int64_t modified = 0;  // any clock, compared for equality only (nanoseconds, so two writes in a second differ)
  uint64_t size = 0;
};

struct DocumentHit {
  std::string path;
  int64_t line = 0;     // of the snippet's first matched term, from 1: the line the snippet quotes
  std::string snippet;  // matched terms in [brackets], one line
  double score = 0;     // BM25: lower is better
};

class DocumentIndex {
 public:
  // Opens or makes the index in `file` (":memory:" for one in memory) for the documents of `source` (the folder,
  // absolute): an index made by another version of the engine or for another folder is emptied and made again.
  // Throws Error "store.open_failed" or "store.failed".
  DocumentIndex(const std::string& file, const std::string& source);

  struct Changes {
    size_t added = 0, updated = 0, removed = 0, unchanged = 0;
  };
  // Brings the index up to date with the documents `present`: those new or changed (by time and size) are read
  // through `text_of` (nothing: leave it out) and indexed, those gone are removed. One transaction.
  Changes refresh(const std::vector<IndexedDocument>& present,
                  const std::function<std::optional<std::string>(const IndexedDocument&)>& text_of);

  // The best `limit` hits of an FTS5 query. Throws Error "store.bad_query" for one FTS5 cannot read (its reason).
  std::vector<DocumentHit> search(const std::string& fts_query, size_t limit) const;
  // The best `limit` hits for any of `terms` (FTS5 strings: query_terms()), ranked by BM25. Ranking costs a few
  // microseconds per chunk a term matches, so a query ranks about 2000 such matches at most: past that its
  // commonest terms are left out (the rarer ones still matching `limit` chunks), which BM25 weighs least anyway
  // (bench/search_docs_bench, 10,000 files: p50 4.7 ms with them, about 2 ms without).
  std::vector<DocumentHit> search_any(const std::vector<std::string>& terms, size_t limit) const;
  size_t documents() const;

 private:
  void clear();
  mutable std::mutex mutex_;  // one connection, its statements used by one caller at a time
  mutable Database db_;
};

// Plain words as an FTS5 query that cannot be a syntax error: each word quoted, a "quoted phrase" kept as a phrase,
// the terms joined by OR (BM25 ranks documents holding more of them first). At most `max_terms` terms; empty when
// the text holds no word.
std::string fts_query_of(std::string_view text, size_t max_terms = 32);
// The same terms, each a quoted FTS5 string, before they are joined.
std::vector<std::string> query_terms(std::string_view text, size_t max_terms = 32);

}  // namespace engine::store
