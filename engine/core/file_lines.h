#pragma once
// A file read a line at a time, each line bounded and the file not: for files that grow without limit (a batch's
// data and its results), which are never held whole.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/core/file.h"
#include "engine/core/limits.h"

namespace engine {

// Data files and result files may be far larger than the files a workflow names.
inline constexpr size_t kMaxDataFileBytes = size_t{64} << 30;

class FileLines {
 public:
  // Throws as FileReader does.
  explicit FileLines(const std::filesystem::path& path, size_t max_line = limits::kFileBytes, Pipes pipes = Pipes::Allowed);
  FileLines(const FileLines&) = delete;  // what is read is a view into the reader's buffer
  FileLines& operator=(const FileLines&) = delete;

  // The next line without its '\n'; false at the end of the file. A line longer than max_line is cut to it and the
  // rest of it skipped (too_long() says so).
  bool next(std::string& line);
  int line_number() const { return line_number_; }  // of the line last returned, from 1
  bool complete() const { return complete_; }       // false: the file ended without the line's '\n'
  bool too_long() const { return too_long_; }
  uint64_t start_offset() const { return start_; }  // the line last returned's first byte
  uint64_t end_offset() const { return offset_; }   // the byte just past the line last returned and its '\n'
  size_t size_hint() const { return reader_.size_hint(); }

 private:
  FileReader reader_;
  size_t max_line_;
  std::string_view chunk_;  // what is read and not yet returned
  bool at_end_ = false;
  int line_number_ = 0;
  bool complete_ = true;
  bool too_long_ = false;
  uint64_t start_ = 0;
  uint64_t offset_ = 0;
};

}  // namespace engine
