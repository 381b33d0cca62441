#include "engine/app/batch_results.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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

void ResultsFile::rewrite_as(std::vector<LineSpan> spans) {
  {
    FileReplacement out(path_);
    std::string line;
    for (const auto& s : spans) {
      line.resize(s.length);
      ssize_t n = ::pread(fd_.get(), line.data(), s.length, static_cast<off_t>(s.offset));
      if (n != static_cast<ssize_t>(s.length)) throw file_error("cannot read back", path_, "io.read_failed");
      line += '\n';
      out.write(line);
    }
    out.commit();
  }
  fd_ = open_for_append(path_);
  end_ = 0;
  for (auto& s : spans) {
    s.offset = end_;
    end_ += s.length + 1;
  }
  lines_ = std::move(spans);
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
    LineSpan span{*index, lines.start_offset(), text.size()};
    end_ = span.offset + span.length + 1;
    if (!lines.complete() && !write_fully(fd_.get(), "\n")) throw file_error("cannot write", path_);
    lines_.push_back(span);  // a line twice stays in the file, as it came
    if (done_.count(*index)) continue;  // ... but the first counts
    done_[*index] = inputs_hash(v.value("inputs", Value::object()));
    ++(failed ? resumed_.failed : resumed_.ok);
    kept.push_back(span);
  }
  if (must_rewrite) {
    rewrite_as(std::move(kept));
  } else if (resumed_.cut_torn) {
    if (::ftruncate(fd_.get(), static_cast<off_t>(end_)) != 0) throw file_error("cannot cut the torn line of", path_);
  } else {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) throw file_error("cannot read", path_, "io.read_failed");
    end_ = static_cast<uint64_t>(st.st_size);  // past any empty lines at the end
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
  auto index = line.find("index");
  if (index == line.end() || !index->is_number_integer() || index->get<int64_t>() < 0)
    throw Error("batch.bad_results", "a result line needs its row's index");
  std::string text = to_json_text(line);
  text += '\n';
  std::lock_guard lock(write_mutex_);
  if (!write_fully(fd_.get(), text)) throw file_error("cannot write the results file", path_);
  lines_.push_back({index->get<size_t>(), end_, text.size() - 1});
  end_ += text.size();
}

void ResultsFile::sort_by_index() {
  std::lock_guard lock(write_mutex_);
  auto by_index = [](const LineSpan& a, const LineSpan& b) { return a.index < b.index; };
  if (std::is_sorted(lines_.begin(), lines_.end(), by_index)) return;
  std::vector<LineSpan> sorted = lines_;
  std::stable_sort(sorted.begin(), sorted.end(), by_index);
  rewrite_as(std::move(sorted));
}

void ResultsFile::sync() {
  std::lock_guard lock(write_mutex_);
  if (::fdatasync(fd_.get()) != 0) throw file_error("cannot write the results file", path_);
}

}  // namespace engine::app
