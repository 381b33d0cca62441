#pragma once
// A batch's results file: JSON lines, one per row of the data, each written whole by one write(2) on an O_APPEND
// descriptor as its run ends, so a batch killed at any moment keeps every line it finished. Opening the file of an
// earlier, stopped batch reads which rows are done, so the batch goes on where it stopped:
//   {"index":3,"line":4,"status":"ok","inputs":{...},"data":{...},"output":...,"usage":{...},"elapsed_ms":812,...}
// The file is the batch's alone while it runs (an exclusive lock, core/file_lock.h): `engine eval` and `batch merge`
// wait for no batch, they refuse a file one is writing.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/value.h"

namespace engine::app {

class ResultsFile {
 public:
  struct Resumed {
    size_t ok = 0;        // lines kept from the earlier batch
    size_t failed = 0;    // failed lines kept (without --retry-failed)
    size_t dropped = 0;   // failed lines removed to be run again (--retry-failed)
    bool cut_torn = false;  // the last line was cut short (the batch was killed while writing it) and removed
  };

  // Opens `path`, creating it. An existing file is read: with `retry_failed`, its failed lines are removed, the file
  // rewritten whole and renamed over itself; a torn last line (one that begins as every result line does) is cut
  // off. Throws Error "io.*", "batch.busy" while another process holds the file, or "batch.bad_results" for a file
  // that is not a batch's results, which is then left exactly as it was.
  ResultsFile(std::filesystem::path path, bool retry_failed);

  // Whether the row has a line; `inputs_json` (the row's inputs as JSON text, redacted as the lines are) must then
  // be those the line was run with: else an Error "batch.other_data" says the file was made from other data.
  bool done(size_t index, const std::string& inputs_json) const;
  bool has(size_t index) const { return done_.count(index) > 0; }
  const Resumed& resumed() const { return resumed_; }

  // Appends one line, whole. Safe from any thread. Throws Error "io.write_failed". A line longer than every reader
  // takes (limits::kResultLineBytes) is written as a failed line saying so, without the output that made it so long.
  void append(const Value& line);
  // Puts the lines in the data's order: a new file written beside it, then renamed over it. Throws as append.
  // Where each line lies is known from its writing (or the reading on open): nothing is read back but the lines.
  void sort_by_index();
  // To the disk (a batch that ends or stops; a killed process loses nothing the kernel has).
  void sync();

  const std::filesystem::path& path() const { return path_; }

 private:
  // Where a line lies in the file, to copy it without holding the file.
  struct LineSpan {
    size_t index;
    uint64_t offset;
    uint64_t length;  // without the '\n'
  };

  void load(bool retry_failed);
  void rewrite_as(std::vector<LineSpan> spans);  // the file becomes those lines, in that order

  std::filesystem::path path_;
  FileDescriptor fd_;
  std::mutex write_mutex_;
  // For each row with a line: a hash of the inputs it ran with (nothing when the line kept none).
  std::unordered_map<size_t, std::optional<size_t>> done_;
  Resumed resumed_;
  std::vector<LineSpan> lines_;  // every line in the file, in the file's order
  uint64_t end_ = 0;             // the file's size: where the next line goes
};

// Whether `text` could be the start of a line the engine wrote: how a line cut short by a killed batch is told from
// a file that was never results.
bool looks_like_result_line(std::string_view text);

// A file must begin as results do before any of it is read whole: a user's notes, a binary file or 300 MB of NUL
// bytes named by mistake is refused at its first byte. Throws Error "batch.bad_results" naming `command`'s fix.
void check_results_start(const std::filesystem::path& path, const std::string& fix);

// The row index of a result line; nothing for a line that is not one (an index past limits::kRowIndex included).
std::optional<size_t> result_index(const Value& line);

}  // namespace engine::app
