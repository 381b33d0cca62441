#include "engine/app/batch_results.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/file_lines.h"
#include "engine/core/file_lock.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::app {
namespace {

constexpr std::string_view kLineStart = R"({"index":)";

FileDescriptor open_for_append(const std::filesystem::path& path) {
  // Two batches appending to one file would each run the rows the other is running; eval rewriting it under a
  // batch would lose the lines appended meanwhile.
  auto fd = open_locked(path, O_RDWR | O_APPEND | O_CREAT, LockMode::Exclusive);
  if (!fd)
    throw Error(ErrorKind::BatchBusy, "another engine process (a batch, eval or merge) is using '" + path.string() +
                                  "'; wait for it to end, or give --out another file");
  return std::move(*fd);
}

size_t inputs_hash(std::string_view inputs_json) { return std::hash<std::string_view>{}(inputs_json); }

// The inputs a line keeps: all of them when they are small beside the line's bound.
constexpr size_t kMaxKeptInputsBytes = size_t{1} << 20;

}  // namespace

bool looks_like_result_line(std::string_view text) {
  return text.substr(0, kLineStart.size()) == kLineStart.substr(0, std::min(text.size(), kLineStart.size()));
}

void check_results_start(const std::filesystem::path& path, const std::string& fix) {
  FileReader reader(path, kMaxDataFileBytes, Pipes::Refused);
  std::string_view head = reader.next();
  size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] == '{') return;  // empty, or begins as results do
  throw Error(ErrorKind::BatchBadResults, path.string() + " is not a batch's results file (it begins with " +
                                       quote_excerpt(std::string(head.substr(first, 16)), 16) + ", not a JSON line); " +
                                       fix);
}

std::optional<size_t> result_index(const Value& line) {
  if (!line.is_object()) return std::nullopt;
  auto it = line.find("index");
  if (it == line.end() || !it->is_number_unsigned() || !line.contains("status")) return std::nullopt;
  size_t index = it->get<size_t>();
  if (index > limits::kRowIndex) return std::nullopt;
  return index;
}

ResultsFile::ResultsFile(std::filesystem::path path, bool retry_failed) : path_(std::move(path)) {
  fd_ = open_for_append(path_);
  load(retry_failed);
}

void ResultsFile::rewrite_as(std::vector<LineSpan> spans) {
  {
    FileReplacement out(path_);
    // Locked before it takes the name: no other process can open the new file and find it free.
    try_lock(out.descriptor(), LockMode::Exclusive);
    std::string line;
    for (const auto& s : spans) {
      line.resize(s.length);
      ssize_t n = ::pread(fd_.get(), line.data(), s.length, static_cast<off_t>(s.offset));
      if (n != static_cast<ssize_t>(s.length)) throw file_error("cannot read back", path_, ErrorKind::IoReadFailed);
      line += '\n';
      out.write(line);
    }
    out.commit();
    fd_ = out.release_descriptor();
  }
  if (::fcntl(fd_.get(), F_SETFL, ::fcntl(fd_.get(), F_GETFL) | O_APPEND) != 0) throw file_error("cannot write", path_);
  end_ = 0;
  for (auto& s : spans) {
    s.offset = end_;
    end_ += s.length + 1;
  }
  lines_ = std::move(spans);
}

void ResultsFile::load(bool retry_failed) {
  std::string fix = "give --out a new file, or the results file of this batch";
  check_results_start(path_, fix);
  FileLines lines(path_, limits::kResultLineBytes, Pipes::Refused);
  std::vector<LineSpan> kept;
  std::string text;
  bool must_rewrite = false;
  while (lines.next(text)) {
    if (text.empty()) continue;
    JsonError why;
    Value v = lines.too_long() ? Value(Value::value_t::discarded) : parse_json(text, &why);
    std::optional<size_t> index = result_index(v);
    if (!index) {
      // Killed while writing it: the run is done again. Only a line begun as the engine begins them is taken for
      // one; anything else means the file is not ours, and nothing of it is cut.
      if (!lines.complete() && !lines.too_long() && looks_like_result_line(text) && text.size() >= kLineStart.size()) {
        resumed_.cut_torn = true;
        break;
      }
      throw Error(ErrorKind::BatchBadResults, path_.string() + ":" + std::to_string(lines.line_number()) +
                                           ": not a batch's result line" +
                                           (lines.too_long() ? " (longer than " +
                                                                   std::to_string(limits::kResultLineBytes >> 20) + " MiB)"
                                                             : "") +
                                           "; " + fix);
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
    auto inputs = v.find("inputs");
    done_[*index] = inputs == v.end() ? std::nullopt : std::optional<size_t>(inputs_hash(to_json_text(*inputs)));
    ++(failed ? resumed_.failed : resumed_.ok);
    kept.push_back(span);
  }
  if (must_rewrite) {
    rewrite_as(std::move(kept));
  } else if (resumed_.cut_torn) {
    if (::ftruncate(fd_.get(), static_cast<off_t>(end_)) != 0) throw file_error("cannot cut the torn line of", path_);
  } else {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) throw file_error("cannot read", path_, ErrorKind::IoReadFailed);
    end_ = static_cast<uint64_t>(st.st_size);  // past any empty lines at the end
  }
}

bool ResultsFile::done(size_t index, const std::string& inputs_json) const {
  auto it = done_.find(index);
  if (it == done_.end()) return false;
  if (it->second && *it->second != inputs_hash(inputs_json))
    throw Error(ErrorKind::BatchOtherData, path_.string() + " has a result for row " + std::to_string(index) +
                                        " run with other inputs than the data's: it was made from other data. "
                                        "Give --out a new file to start again");
  return true;
}

void ResultsFile::append(const Value& line) {
  auto index = line.find("index");
  if (index == line.end() || !index->is_number_integer() || index->get<int64_t>() < 0)
    throw Error(ErrorKind::BatchBadResults, "a result line needs its row's index");
  std::string text = to_json_text(line);
  if (text.size() >= limits::kResultLineBytes) {
    // No reader would take it back (resume, eval, merge): the row fails, saying why, and stays resumable.
    Value short_line{{"index", *index}, {"line", line.value("line", Value(0))}, {"status", "failed"}};
    auto inputs = line.find("inputs");
    if (inputs != line.end() && to_json_text(*inputs).size() < kMaxKeptInputsBytes) short_line["inputs"] = *inputs;
    short_line["error"] = {{"kind", "batch.line_too_long"},
                           {"message", "the result line would be " + std::to_string(text.size() >> 20) +
                                           " MiB, more than the " + std::to_string(limits::kResultLineBytes >> 20) +
                                           " MiB a results file's line may hold; the output was left out"}};
    text = to_json_text(short_line);
  }
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
