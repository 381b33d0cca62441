// A batch's CSV data read by DataReader (one pass, a record fed a line at a time) against a reference that splits
// each record's whole text again for every line it gains, as the engine once did: the same rows, fields and errors.
#include <fstream>

#include "engine/app/batch_data.h"
#include "engine/core/text.h"
#include "fuzz/fuzz_support.h"

namespace {

using engine::Value;

// RFC 4180 fields of a record's whole text; false when a quote is still open at its end.
bool reference_split(std::string_view text, std::vector<std::string>& fields, std::string& error) {
  fields.assign(1, "");
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c != '"') fields.back() += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') fields.back() += '"', ++i;
      else quoted = false;
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

struct Row {
  std::vector<std::string> fields;
  std::string error;
};

std::vector<Row> reference_rows(std::string text) {
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  for (auto& l : lines)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  std::vector<Row> rows;
  for (size_t i = 0; i < lines.size();) {
    std::string record = lines[i++];
    if (engine::trim(record).empty()) continue;  // blank as the engine reads blank (a lone \v too)
    Row row;
    while (!reference_split(record, row.fields, row.error)) {
      if (i == lines.size()) {
        row.error = "a quoted field is not closed before the end of the file";
        break;
      }
      record += '\n' + lines[i++];
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  std::string text(fuzz::as_text(data, size));
  std::filesystem::path file = fuzz::scratch_path("data.csv");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  std::vector<Row> expected = reference_rows(text);
  std::vector<app::DataRow> got;
  std::vector<std::string> header;
  try {
    app::DataReader reader(file);
    header = reader.header();
    for (app::DataRow row; reader.next(row);) got.push_back(row);
  } catch (const Error&) {
    // a header that is missing, malformed or names a column twice: the reference must agree it is not a header
    if (!expected.empty() && expected[0].error.empty()) {
      std::vector<std::string> names = expected[0].fields;
      std::sort(names.begin(), names.end());
      bool bad = std::adjacent_find(names.begin(), names.end()) != names.end() ||
                 std::find(names.begin(), names.end(), "") != names.end();
      if (!bad) fuzz::mismatch("a valid header was refused", "", text);
    }
    return 0;
  }
  if (expected.empty() || expected[0].fields != header) fuzz::mismatch("the header differs", "", text);
  if (got.size() != expected.size() - 1) fuzz::mismatch("the number of rows differs", std::to_string(got.size()), text);
  for (size_t i = 0; i < got.size(); ++i) {
    const Row& want = expected[i + 1];
    bool want_ok = want.error.empty() && want.fields.size() == header.size();
    if (want_ok != got[i].error.empty()) fuzz::mismatch("a row's verdict differs", got[i].error, text);
    if (!want_ok) continue;
    for (size_t f = 0; f < header.size(); ++f)
      if (got[i].columns[header[f]] != want.fields[f]) fuzz::mismatch("a field differs", got[i].columns.dump(), text);
  }
  return 0;
}
