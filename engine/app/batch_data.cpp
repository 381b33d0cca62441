#include "engine/app/batch_data.h"

#include <algorithm>
#include <unordered_set>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::app {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool ends_with_csv(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".csv";
}

}  // namespace

// RFC 4180 fields of one record, read a line at a time: each byte is looked at once, however many lines a quoted
// field spans (splitting the record again for each line it gains would take time in the square of its lines).
void CsvRecord::start() {
  fields_.assign(1, "");
  quoted_ = was_quoted_ = quote_seen_ = false;
  bytes_ = 0;
  error_.clear();
}

bool CsvRecord::feed(std::string_view line, bool continued) {
  bytes_ += line.size() + (continued ? 1 : 0);
  if (continued) fields_.back() += '\n';  // the line break inside the quotes is the field's
  size_t i = 0;
  auto close_quote = [&] {
    quote_seen_ = false;
    quoted_ = false;
  };
  while (i < line.size()) {
    char c = line[i];
    if (quoted_) {
      if (quote_seen_) {  // the quote before was closing, or the first of a doubled one
        quote_seen_ = false;
        if (c == '"') {
          fields_.back() += '"';
          ++i;
          continue;
        }
        quoted_ = false;
        continue;  // c is read again, outside the quotes
      }
      // Everything up to the next quote is the field's, taken at once.
      size_t q = line.find('"', i);
      fields_.back().append(line.substr(i, q == std::string_view::npos ? std::string_view::npos : q - i));
      if (q == std::string_view::npos) break;
      quote_seen_ = true;
      i = q + 1;
      continue;
    }
    if (c == ',') {
      fields_.emplace_back();
      was_quoted_ = false;
    } else if (c == '"' && fields_.back().empty() && !was_quoted_) {
      quoted_ = was_quoted_ = true;
    } else if (was_quoted_) {
      error_ = "a quoted field goes on after its closing quote (column " + std::to_string(fields_.size()) + ")";
      return true;
    } else {
      fields_.back() += c;
    }
    ++i;
  }
  if (quote_seen_) close_quote();  // a quote at the end of a line closes its field
  return !quoted_;
}

namespace {

std::string where(const std::filesystem::path& path, int line) { return path.string() + ":" + std::to_string(line) + ": "; }

// A header's columns for a message: the first few, and how many there are.
std::string listed(const std::vector<std::string>& header) {
  constexpr size_t kShown = 20;
  if (header.size() <= kShown) return join(header, ", ");
  std::vector<std::string> first(header.begin(), header.begin() + kShown);
  return join(first, ", ") + ", ... (" + std::to_string(header.size()) + " in all)";
}

}  // namespace

DataReader::DataReader(const std::filesystem::path& path)
    : path_(path), csv_(ends_with_csv(path)), lines_(std::make_unique<FileLines>(path)) {
  if (!csv_) return;
  std::string text, error;
  int line = 0;
  if (!next_record(text, line, error))
    throw Error(ErrorKind::DataBadHeader, path_.string() + ": a CSV file needs a header row naming its columns; the file is empty");
  if (!error.empty()) throw Error(ErrorKind::DataBadHeader, where(path_, line) + "the header row is not valid CSV: " + error);
  std::vector<std::string>& fields = record_.fields();
  std::unordered_set<std::string_view> seen;
  seen.reserve(fields.size());
  for (auto& f : fields) {
    if (f.empty()) throw Error(ErrorKind::DataBadHeader, where(path_, line) + "the header row has an empty column name");
    if (!seen.insert(f).second)
      throw Error(ErrorKind::DataBadHeader, where(path_, line) + "the header row names the column " + quote_excerpt(f, 60) + " twice");
  }
  header_ = std::move(fields);
}

bool DataReader::next_record(std::string& text, int& line, std::string& error) {
  std::string& piece = piece_;
  for (;;) {
    if (!lines_->next(piece)) return false;
    if (lines_->line_number() == 1 && piece.compare(0, kBom.size(), kBom) == 0) piece.erase(0, kBom.size());
    if (lines_->too_long()) error = "the row is longer than " + std::to_string(limits::kFileBytes >> 20) + " MiB";
    if (!piece.empty() && piece.back() == '\r') piece.pop_back();
    if (!trim(piece).empty()) break;
  }
  line = lines_->line_number();
  if (!csv_) {
    text = std::move(piece);
    return true;
  }
  // A quoted field may hold line breaks: the record goes on until its quotes close.
  record_.start();
  bool complete = record_.feed(piece, false);
  while (!complete) {
    if (!lines_->next(piece)) {
      error = "a quoted field is not closed before the end of the file";
      return true;
    }
    if (!piece.empty() && piece.back() == '\r') piece.pop_back();
    complete = record_.feed(piece, true);
    if (!complete && record_.bytes() > limits::kFileBytes) {
      error = "the row is longer than " + std::to_string(limits::kFileBytes >> 20) + " MiB";
      return true;
    }
  }
  if (error.empty()) error = record_.error();
  return true;
}

Value DataReader::parse_csv(std::string& error) {
  std::vector<std::string>& fields = record_.fields();
  if (fields.size() != header_.size()) {
    error = "the row has " + std::to_string(fields.size()) + " fields and the header " +
            std::to_string(header_.size()) + " columns";
    return nullptr;
  }
  Value row = Value::object();
  row.get_ref<Value::object_t&>().reserve(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) append_new_member(row, header_[i], std::move(fields[i]));
  return row;
}

bool DataReader::next(DataRow& row) {
  std::string text, error;
  int line = 0;
  if (!next_record(text, line, error)) return false;
  row.index = next_index_++;
  row.line = line;
  row.columns = nullptr;
  row.error.clear();
  if (error.empty()) {
    if (csv_) {
      row.columns = parse_csv(error);
    } else {
      JsonError why;
      Value v = parse_json(text, &why);
      if (v.is_discarded()) error = "not JSON: " + why.message;
      else if (!v.is_object()) error = "a row must be a JSON object of columns, not " + std::string(v.type_name());
      else row.columns = std::move(v);
    }
  }
  if (!error.empty()) row.error = where(path_, line) + error;
  return true;
}

std::optional<size_t> count_rows(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  DataReader reader(path);
  DataRow row;
  size_t n = 0;
  while (reader.next(row)) ++n;
  return n;
}

ColumnMap::ColumnMap(const std::vector<std::string>& pairs, const std::vector<workflow::Input>& inputs) {
  std::vector<std::string> names;
  for (const auto& i : inputs) names.push_back(i.name);
  std::vector<std::pair<std::string, std::string>> mapped;
  for (const auto& pair : pairs) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
      throw Error(ErrorKind::Usage, "--map takes INPUT=COLUMN, got " + quote_excerpt(pair, 60));
    std::string input = pair.substr(0, eq);
    if (std::find(names.begin(), names.end(), input) == names.end())
      throw Error(ErrorKind::Usage, "--map " + pair + ": the workflow has no input '" + input + "'" +
                               did_you_mean(input, names) + " (inputs: " + join(names, ", ") + ")");
    mapped.emplace_back(input, pair.substr(eq + 1));
  }
  for (const auto& i : inputs) {
    auto m = std::find_if(mapped.begin(), mapped.end(), [&](const auto& p) { return p.first == i.name; });
    bool is_mapped = m != mapped.end();
    sources_.push_back({i.name, is_mapped ? m->second : i.name, is_mapped || !i.default_value});
  }
}

void ColumnMap::split(const Value& columns, Value& inputs, Value& rest) const {
  inputs = Value::object();
  rest = Value::object();
  for (const auto& s : sources_) {
    auto it = columns.find(s.column);
    if (it != columns.end()) inputs[s.input] = *it;
  }
  for (auto it = columns.begin(); it != columns.end(); ++it) {
    const std::string& column = it.key();
    bool used = std::any_of(sources_.begin(), sources_.end(), [&](const Source& s) { return s.column == column; });
    if (!used) append_new_member(rest, column, *it);  // a row's columns are unique already
  }
}

void ColumnMap::check_header(const std::vector<std::string>& header) const {
  for (const auto& s : sources_)
    if (s.needed && std::find(header.begin(), header.end(), s.column) == header.end())
      throw Error(ErrorKind::Usage, "the data has no column '" + s.column + "' for the input '" + s.input + "'" +
                               did_you_mean(s.column, header) + " (columns: " + listed(header) +
                               "); name its column with --map " + s.input + "=COLUMN");
}

}  // namespace engine::app
