#pragma once
// `engine batch merge`: the results files of a batch's shards (or of several runs) combined into one file in the
// data's order, with what is missing and what is there twice reported rather than silently dropped.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/value.h"

namespace engine::app {

// Rows first to last, both included.
struct RowRange {
  size_t first;
  size_t last;
  bool operator==(const RowRange&) const = default;
};

struct MergeReport {
  size_t lines = 0;                // written
  size_t rows = 0;                 // the data's rows: given, or one past the highest index seen
  std::vector<RowRange> missing;   // rows no file has a line for, as ranges: a line of index 10^12 costs one
  size_t missing_rows = 0;         // how many rows those ranges hold
  std::vector<size_t> duplicates;  // rows with more than one line (the first ok one is kept, else the first)
  std::vector<std::string> torn;   // "file:line" of lines cut short (a shard killed while writing), left out

  bool complete() const { return missing.empty() && duplicates.empty() && torn.empty(); }
  // {lines, rows, complete, missing: [[first, last], ...], missing_rows, duplicates, torn}
  Value to_json() const;
};

// Writes the lines of `inputs` to `out` in index order (a new file renamed into place). `rows`: how many rows the
// data has (from --data), to find rows missing at its end. Each input is read under a shared lock, so a batch still
// writing one is refused ("batch.busy") rather than merged half done. Throws Error "io.*", "batch.bad_results",
// "batch.busy", or "usage" when `out` is one of the inputs.
MergeReport merge_results(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                          std::optional<size_t> rows);

}  // namespace engine::app
