#include "engine/app/batch_results.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/file_lines.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"

namespace engine::app {
namespace {

FileDescriptor open_for_append(const std::filesystem::path& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) throw file_error("cannot open the results file", path);
  // Two batches appending to one file would each run the rows the other is running. The lock goes with the
  // descriptor, so a killed batch leaves none behind; a file system without locks (some NFS) is let through.
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    throw Error("batch.busy", "another engine batch is writing '" + path.string() +
                                  "'; wait for it to end, or give --out another file");
  return fd;
}

// Where a line lies in the file, to copy it without holding the file.
struct LineSpan {
  size_t index;
  uint64_t offset;
  uint64_t length;  // without the '\n'
};

// Writes the lines at `spans` of `from` into a new version of `to`.
void rewrite(int from, const std::vector<LineSpan>& spans, const std::filesystem::path& to) {
  FileReplacement out(to);
  std::string line;
  for (const auto& s : spans) {
    line.resize(s.length);
    ssize_t n = ::pread(from, line.data(), s.length, static_cast<off_t>(s.offset));
    if (n != static_cast<ssize_t>(s.length)) throw file_error("cannot read back", to, "io.read_failed");
    line += '\n';
    out.write(line);
  }
  out.commit();
}

size_t inputs_hash(const Value& inputs) { return std::hash<std::string>{}(to_json_text(inputs)); }

}  // namespace

std::optional<size_t> result_index(const Value& line) {
  if (!line.is_object()) return std::nullopt;
  auto it = line.find("index");
  if (it == line.end() || !it->is_number_unsigned() || !line.contains("status")) return std::nullopt;
  return it->get<size_t>();
}

ResultsFile::ResultsFile(std::filesystem::path path, bool retry_failed) : path_(std::move(path)) {
  fd_ = open_for_append(path_);
  load(retry_failed);
}

void ResultsFile::load(bool retry_failed) {
  FileLines lines(path_, kMaxDataFileBytes, Pipes::Refused);
  std::vector<LineSpan> kept;
  std::string text;
  bool must_rewrite = false;
  while (lines.next(text)) {
    if (text.empty()) continue;
    JsonError why;
    Value v = lines.too_long() ? Value(Value::value_t::discarded) : parse_json(text, &why);
    std::optional<size_t> index = result_index(v);
    if (!index) {
      if (!lines.complete()) {  // killed while writing it: the run is done again
        resumed_.cut_torn = true;
        break;
      }
      throw Error("batch.bad_results", path_.string() + ":" + std::to_string(lines.line_number()) +
                                           ": not a batch's result line; give --out a new file, or the results "
                                           "file of this batch");
    }
    bool failed = v["status"] != "ok";
    if (failed && retry_failed) {
      ++resumed_.dropped;
      must_rewrite = true;
      continue;
    }
    if (done_.count(*index)) continue;  // a line twice: the first counts
    done_[*index] = inputs_hash(v.value("inputs", Value::object()));
    ++(failed ? resumed_.failed : resumed_.ok);
    kept.push_back({*index, lines.start_offset(), text.size()});
    if (!lines.complete() && !write_fully(fd_.get(), "\n")) throw file_error("cannot write", path_);
  }
  if (must_rewrite) {
    rewrite(fd_.get(), kept, path_);
    fd_ = open_for_append(path_);
  } else if (resumed_.cut_torn) {
    uint64_t end = kept.empty() ? 0 : kept.back().offset + kept.back().length + 1;
    if (::ftruncate(fd_.get(), static_cast<off_t>(end)) != 0) throw file_error("cannot cut the torn line of", path_);
  }
}

bool ResultsFile::done(size_t index, const std::string& inputs_json) const {
  auto it = done_.find(index);
  if (it == done_.end()) return false;
  if (it->second != std::hash<std::string>{}(inputs_json))
    throw Error("batch.other_data", path_.string() + " has a result for row " + std::to_string(index) +
                                        " run with other inputs than the data's: it was made from other data. "
                                        "Give --out a new file to start again");
  return true;
}

void ResultsFile::append(const Value& line) {
  std::string text = to_json_text(line);
  text += '\n';
  std::lock_guard lock(write_mutex_);
  if (!write_fully(fd_.get(), text)) throw file_error("cannot write the results file", path_);
}

void ResultsFile::sort_by_index() {
  std::lock_guard lock(write_mutex_);
  std::vector<LineSpan> spans;
  {
    FileLines lines(path_, kMaxDataFileBytes, Pipes::Refused);
    std::string text;
    while (lines.next(text)) {
      // Only the index is wanted: the line is one this batch wrote or kept.
      if (auto index = result_index(parse_json(text))) spans.push_back({*index, lines.start_offset(), text.size()});
    }
  }
  if (std::is_sorted(spans.begin(), spans.end(), [](auto& a, auto& b) { return a.index < b.index; })) return;
  std::stable_sort(spans.begin(), spans.end(), [](auto& a, auto& b) { return a.index < b.index; });
  rewrite(fd_.get(), spans, path_);
  fd_ = open_for_append(path_);
}

void ResultsFile::sync() {
  std::lock_guard lock(write_mutex_);
  if (::fdatasync(fd_.get()) != 0) throw file_error("cannot write the results file", path_);
}

}  // namespace engine::app
