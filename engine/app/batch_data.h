#pragma once
// A batch's data: rows read one at a time from JSON lines (an object per line) or CSV (a header row, RFC 4180
// quoting, an optional UTF-8 BOM), and how a row's columns become a run's inputs.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/file_lines.h"
#include "engine/core/value.h"
#include "engine/workflow/executor.h"

namespace engine::app {

struct DataRow {
  size_t index = 0;  // the row's place in the data, from 0: what a result line and a shard name it by
  int line = 0;      // where it starts in the file, from 1
  Value columns;     // an object; null when the row could not be read
  std::string error;  // why it could not be read: "questions.jsonl:7: ..."
};

// One CSV record's fields (RFC 4180), fed a line at a time.
class CsvRecord {
 public:
  void start();
  // Reads `line` (without its line break; `continued`: the record's earlier lines ended inside quotes). True when
  // the record ends with it, or when it is malformed (error()).
  bool feed(std::string_view line, bool continued);
  std::vector<std::string>& fields() { return fields_; }
  const std::string& error() const { return error_; }
  size_t bytes() const { return bytes_; }  // of the lines fed since start()

 private:
  std::vector<std::string> fields_;
  bool quoted_ = false;
  bool was_quoted_ = false;  // the field began with a quote: only a separator may follow its closing quote
  bool quote_seen_ = false;  // inside quotes, a quote was just read: closing, or the first of a doubled one
  size_t bytes_ = 0;
  std::string error_;
};

class DataReader {
 public:
  // CSV for a name ending in .csv, else JSON lines. Throws Error "io.*", or "data.bad_header" for a CSV file
  // whose header row is missing, empty or names a column twice.
  explicit DataReader(const std::filesystem::path& path);

  // The next row, read or not (a bad row is reported in it, and the next one follows); false at the end.
  bool next(DataRow& row);
  const std::vector<std::string>& header() const { return header_; }  // a CSV file's columns
  bool is_csv() const { return csv_; }

 private:
  // The next record and the line it starts on: a JSON line's text, or a CSV record's fields in record_ (a CSV
  // record may span lines inside quotes).
  bool next_record(std::string& text, int& line, std::string& error);
  Value parse_csv(std::string& error);  // record_'s fields, by the header's names

  std::filesystem::path path_;
  bool csv_;
  std::unique_ptr<FileLines> lines_;
  CsvRecord record_;
  std::string piece_;  // the line last read, its buffer kept between records
  std::vector<std::string> header_;
  size_t next_index_ = 0;
};

// How many rows the file holds, for a progress line's estimate: nothing for a pipe, which can be read only once.
std::optional<size_t> count_rows(const std::filesystem::path& path);

// Which column each of the workflow's inputs reads: `--map input=column`, else the column of the input's name.
class ColumnMap {
 public:
  // Throws Error "usage" for a pair that is not input=column or names an input the workflow does not declare.
  ColumnMap(const std::vector<std::string>& pairs, const std::vector<workflow::Input>& inputs);
  // The run's inputs from the row's columns, and the columns no input read (an id, an expected answer), which the
  // results keep for evaluators.
  void split(const Value& columns, Value& inputs, Value& rest) const;
  // A CSV header lacking the column of a mapped input or of one without a default: an Error "usage" naming it,
  // before any run starts.
  void check_header(const std::vector<std::string>& header) const;

 private:
  struct Source {
    std::string input;
    std::string column;
    bool needed;  // mapped, or without a default
  };
  std::vector<Source> sources_;
};

}  // namespace engine::app
