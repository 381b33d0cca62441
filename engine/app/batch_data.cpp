#include "engine/app/batch_data.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/text.h"

namespace engine::app {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool ends_with_csv(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".csv";
}

// RFC 4180 fields of one record; false when a quote is still open at its end (the record goes on on the next line).
bool split_csv(std::string_view text, std::vector<std::string>& fields, std::string& error) {
  fields.assign(1, "");
  bool quoted = false;
  bool was_quoted = false;  // the field began with a quote: only separators may follow its closing quote
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == ',') {
      fields.emplace_back();
      was_quoted = false;
    } else if (c == '"' && fields.back().empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (was_quoted) {
      error = "a quoted field goes on after its closing quote (column " + std::to_string(fields.size()) + ")";
      return true;
    } else {
      fields.back() += c;
    }
  }
  return !quoted;
}

std::string where(const std::filesystem::path& path, int line) { return path.string() + ":" + std::to_string(line) + ": "; }

}  // namespace

DataReader::DataReader(const std::filesystem::path& path)
    : path_(path), csv_(ends_with_csv(path)), lines_(std::make_unique<FileLines>(path)) {
  if (!csv_) return;
  std::string text, error;
  int line = 0;
  if (!next_record(text, line, error))
    throw Error("data.bad_header", path_.string() + ": a CSV file needs a header row naming its columns; the file is empty");
  std::vector<std::string> fields;
  split_csv(text, fields, error);
  if (!error.empty()) throw Error("data.bad_header", where(path_, line) + "the header row is not valid CSV: " + error);
  for (auto& f : fields) {
    if (f.empty()) throw Error("data.bad_header", where(path_, line) + "the header row has an empty column name");
    if (std::find(header_.begin(), header_.end(), f) != header_.end())
      throw Error("data.bad_header", where(path_, line) + "the header row names the column '" + f + "' twice");
    header_.push_back(std::move(f));
  }
}

bool DataReader::next_record(std::string& text, int& line, std::string& error) {
  std::string piece;
  for (;;) {
    if (!lines_->next(piece)) return false;
    if (lines_->line_number() == 1 && piece.compare(0, kBom.size(), kBom) == 0) piece.erase(0, kBom.size());
    if (lines_->too_long()) error = "the row is longer than " + std::to_string(kMaxFileBytes >> 20) + " MiB";
    if (!piece.empty() && piece.back() == '\r') piece.pop_back();
    if (!trim(piece).empty()) break;
  }
  line = lines_->line_number();
  text = std::move(piece);
  if (!csv_) return true;
  // A quoted field may hold line breaks: the record goes on until its quotes close.
  std::vector<std::string> fields;
  std::string ignored;
  while (!split_csv(text, fields, ignored)) {
    if (!lines_->next(piece)) {
      error = "a quoted field is not closed before the end of the file";
      return true;
    }
    if (!piece.empty() && piece.back() == '\r') piece.pop_back();
    text += '\n';
    text += piece;
    if (text.size() > kMaxFileBytes) {
      error = "the row is longer than " + std::to_string(kMaxFileBytes >> 20) + " MiB";
      return true;
    }
  }
  return true;
}

Value DataReader::parse_csv(const std::string& text, std::string& error) const {
  std::vector<std::string> fields;
  split_csv(text, fields, error);
  if (!error.empty()) return nullptr;
  if (fields.size() != header_.size()) {
    error = "the row has " + std::to_string(fields.size()) + " fields and the header " +
            std::to_string(header_.size()) + " columns";
    return nullptr;
  }
  Value row = Value::object();
  for (size_t i = 0; i < fields.size(); ++i) row[header_[i]] = std::move(fields[i]);
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
      row.columns = parse_csv(text, error);
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
      throw Error("usage", "--map takes INPUT=COLUMN, got " + quote_excerpt(pair, 60));
    std::string input = pair.substr(0, eq);
    if (std::find(names.begin(), names.end(), input) == names.end())
      throw Error("usage", "--map " + pair + ": the workflow has no input '" + input + "'" +
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
  for (const auto& [column, value] : columns.items()) {
    bool used = std::any_of(sources_.begin(), sources_.end(), [&](const Source& s) { return s.column == column; });
    if (!used) rest[column] = value;
  }
}

void ColumnMap::check_header(const std::vector<std::string>& header) const {
  for (const auto& s : sources_)
    if (s.needed && std::find(header.begin(), header.end(), s.column) == header.end())
      throw Error("usage", "the data has no column '" + s.column + "' for the input '" + s.input + "'" +
                               did_you_mean(s.column, header) + " (columns: " + join(header, ", ") +
                               "); name its column with --map " + s.input + "=COLUMN");
}

}  // namespace engine::app
