#include "engine/app/batch_merge.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "engine/app/batch_results.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lines.h"
#include "engine/core/file_lock.h"
#include "engine/core/json_parse.h"
#include "engine/core/limits.h"

namespace engine::app {
namespace {

struct Found {
  size_t index;
  size_t file;  // which input
  uint64_t offset;
  uint64_t length;
  bool ok;
};

}  // namespace

Value MergeReport::to_json() const {
  Value ranges = Value::array();
  for (const auto& r : missing) ranges.push_back(Value::array({r.first, r.last}));
  return Value{{"lines", lines},        {"rows", rows},       {"complete", complete()}, {"missing", std::move(ranges)},
               {"missing_rows", missing_rows}, {"duplicates", duplicates}, {"torn", torn}};
}

MergeReport merge_results(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                          std::optional<size_t> rows) {
  std::error_code ec;
  for (const auto& in : inputs)
    if (std::filesystem::equivalent(in, out, ec))
      throw Error(ErrorKind::Usage, "--out " + out.string() + " is one of the files to merge; give a new file");
  MergeReport report;
  std::vector<Found> found;
  std::vector<FileDescriptor> files;
  for (size_t f = 0; f < inputs.size(); ++f) {
    auto locked = open_locked(inputs[f], O_RDONLY, LockMode::Shared);
    if (!locked)
      throw Error(ErrorKind::BatchBusy, "an engine batch (or eval) is still writing '" + inputs[f].string() +
                                    "'; merge it once it has ended");
    files.push_back(std::move(*locked));
    check_results_start(inputs[f], "merge only the results files of engine batch");
    FileLines lines(inputs[f], limits::kResultLineBytes, Pipes::Refused);
    std::string text;
    while (lines.next(text)) {
      if (text.empty()) continue;
      Value v = lines.too_long() ? Value(Value::value_t::discarded) : parse_json(text);
      std::optional<size_t> index = result_index(v);
      std::string where = inputs[f].string() + ":" + std::to_string(lines.line_number());
      if (!index) {
        if (!lines.complete()) {
          report.torn.push_back(where);
          continue;
        }
        throw Error(ErrorKind::BatchBadResults, where + ": not a batch's result line");
      }
      found.push_back({*index, f, lines.start_offset(), text.size(), v["status"] == "ok"});
    }
  }
  // By index; an ok line before a failed one; else in the order the files were given.
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.index != b.index ? a.index < b.index : a.ok > b.ok;
  });
  size_t highest = found.empty() ? 0 : found.back().index + 1;  // result_index keeps this from wrapping
  report.rows = rows ? std::max(*rows, highest) : highest;
  auto missing = [&](size_t first, size_t end) {  // rows [first, end)
    if (first >= end) return;
    report.missing.push_back({first, end - 1});
    report.missing_rows += end - first;
  };

  FileReplacement merged(out);
  size_t next = 0;  // the next row expected
  std::string line;
  for (size_t i = 0; i < found.size(); ++i) {
    const Found& f = found[i];
    if (i > 0 && found[i - 1].index == f.index) {
      if (report.duplicates.empty() || report.duplicates.back() != f.index) report.duplicates.push_back(f.index);
      continue;
    }
    missing(next, f.index);
    next = f.index + 1;
    line.resize(f.length);
    if (::pread(files[f.file].get(), line.data(), f.length, static_cast<off_t>(f.offset)) != static_cast<ssize_t>(f.length))
      throw Error(ErrorKind::IoReadFailed, "cannot read back '" + inputs[f.file].string() + "'");
    line += '\n';
    merged.write(line);
    ++report.lines;
  }
  missing(next, report.rows);
  merged.commit();
  return report;
}

}  // namespace engine::app
