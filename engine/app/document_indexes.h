#pragma once
// `engine index`: the document indexes search_docs keeps, made ahead of time so the first question is answered at
// once (tools/document_search.h).
#include <filesystem>
#include <string>
#include <vector>

#include "engine/core/value.h"

namespace engine::app {

struct IndexReport {
  std::string folder;  // indexed
  std::string file;    // the index
  size_t documents = 0, added = 0, updated = 0, removed = 0;
  double seconds = 0;
  Value to_json() const;
};

// A folder, into `file` (default: where a workflow in the current folder granting this folder would keep it).
// Throws Error "io.read_failed" for a folder that is not one.
IndexReport index_folder(const std::filesystem::path& folder, const std::filesystem::path& file = {});
// Each search_docs tool of a workflow, where the tool keeps its index. Throws the loader's errors, and Error
// "usage" when the workflow has no search_docs tool.
std::vector<IndexReport> index_workflow(const std::string& workflow);

}  // namespace engine::app
