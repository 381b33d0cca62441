// A batch's rows from JSON lines and CSV: every row numbered, a bad row reported with its line and the next one
// read, and a row's columns split into the run's inputs and the columns kept for evaluators.
#include <catch2/catch.hpp>

#include "engine/app/batch_data.h"
#include "engine/core/error.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::vector<app::DataRow> all_rows(const std::filesystem::path& file) {
  app::DataReader reader(file);
  std::vector<app::DataRow> rows;
  for (app::DataRow row; reader.next(row);) rows.push_back(row);
  return rows;
}

std::vector<workflow::Input> inputs_named(std::vector<std::string> names) {
  std::vector<workflow::Input> out;
  for (auto& n : names) out.push_back({n, "", std::nullopt});
  return out;
}

std::string header_error(const std::filesystem::path& file) {
  try {
    app::DataReader reader(file);
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("JSON lines: blank lines skipped, a bad line reported with its line, the rows after it still read", "[app][batch]") {
  test::TempDir dir;
  auto file = dir.write("q.jsonl", "\xEF\xBB\xBF{\"q\": \"one\"}\n\n{\"q\": 2, \"id\": 7}\n{\"q\": \n[1]\r\n{\"q\": \"last\"}");
  auto rows = all_rows(file);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].columns == Value{{"q", "one"}});  // the BOM is not part of the first line
  CHECK(rows[1].index == 1);
  CHECK(rows[1].line == 3);
  CHECK(rows[1].columns["id"] == 7);
  CHECK(rows[2].columns.is_null());
  CHECK(rows[2].error.rfind(file.string() + ":4: not JSON: ", 0) == 0);
  CHECK(rows[3].error == file.string() + ":5: a row must be a JSON object of columns, not array");
  CHECK(rows[4].index == 4);
  CHECK(rows[4].line == 6);
  CHECK(rows[4].columns["q"] == "last");  // the last line needs no newline
  CHECK(app::count_rows(file) == 5);
}

TEST_CASE("CSV: a BOM, quoted commas, doubled quotes, line breaks inside quotes and CRLF", "[app][batch]") {
  test::TempDir dir;
  auto file = dir.write("q.csv",
                        "\xEF\xBB\xBFid,question,expected\r\n"
                        "1,\"What is 2, plus 2?\",4\r\n"
                        "2,\"She said \"\"hi\"\"\",\"\"\r\n"
                        "3,\"two\nlines\",x\n"
                        "\n"
                        "4,too,many,fields\n"
                        "5,\"closed\" late,x\n"
                        "6,last,y\n");
  app::DataReader reader(file);
  CHECK(reader.is_csv());
  CHECK(reader.header() == std::vector<std::string>{"id", "question", "expected"});
  std::vector<app::DataRow> rows;
  for (app::DataRow row; reader.next(row);) rows.push_back(row);
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].columns == Value{{"id", "1"}, {"question", "What is 2, plus 2?"}, {"expected", "4"}});
  CHECK(rows[1].columns["question"] == "She said \"hi\"");
  CHECK(rows[1].columns["expected"] == "");
  CHECK(rows[2].columns["question"] == "two\nlines");
  CHECK(rows[2].line == 4);
  CHECK(rows[3].error == file.string() + ":7: the row has 4 fields and the header 3 columns");
  CHECK(rows[4].error == file.string() + ":8: a quoted field goes on after its closing quote (column 2)");
  CHECK(rows[5].index == 5);
  CHECK(rows[5].columns["question"] == "last");
  CHECK(app::count_rows(file) == 6);
}

TEST_CASE("CSV: a quote never closed is a bad last row, and a missing or repeated header is refused", "[app][batch]") {
  test::TempDir dir;
  auto open = dir.write("open.csv", "a,b\n1,\"never closed\n2,3\n");
  auto rows = all_rows(open);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].error == open.string() + ":2: a quoted field is not closed before the end of the file");
  CHECK(header_error(dir.write("empty.csv", "")) ==
        "data.bad_header: " + (dir.path() / "empty.csv").string() +
            ": a CSV file needs a header row naming its columns; the file is empty");
  CHECK(header_error(dir.write("twice.csv", "a,b,a\n1,2,3\n")) ==
        "data.bad_header: " + (dir.path() / "twice.csv").string() + ":1: the header row names the column 'a' twice");
  CHECK(header_error(dir.write("blank.csv", "a,,c\n")) ==
        "data.bad_header: " + (dir.path() / "blank.csv").string() + ":1: the header row has an empty column name");
}

TEST_CASE("a column map: inputs read their own column or the mapped one, and the other columns are kept apart", "[app][batch]") {
  std::vector<workflow::Input> inputs = inputs_named({"question", "style"});
  inputs[1].default_value = "short";
  app::ColumnMap map({"question=text"}, inputs);
  Value in, rest;
  map.split(Value{{"text", "2+2?"}, {"id", 1}, {"expected", "4"}, {"question", "ignored"}}, in, rest);
  CHECK(in == Value{{"question", "2+2?"}});  // style is left to its default
  CHECK(rest == Value{{"id", 1}, {"expected", "4"}, {"question", "ignored"}});
  app::ColumnMap same({}, inputs);
  same.split(Value{{"question", "q"}, {"style", "long"}}, in, rest);
  CHECK(in == Value{{"question", "q"}, {"style", "long"}});
  CHECK(rest == Value::object());
}

TEST_CASE("a column map refuses a malformed pair, an unknown input and a CSV header without a needed column", "[app][batch]") {
  auto inputs = inputs_named({"question"});
  CHECK_THROWS_WITH(app::ColumnMap({"question"}, inputs), "--map takes INPUT=COLUMN, got 'question'");
  CHECK_THROWS_WITH(app::ColumnMap({"questoin=text"}, inputs),
                    "--map questoin=text: the workflow has no input 'questoin' (did you mean 'question'?) "
                    "(inputs: question)");
  app::ColumnMap map({}, inputs);
  CHECK_NOTHROW(map.check_header({"id", "question"}));
  CHECK_THROWS_WITH(map.check_header({"id", "questions"}),
                    "the data has no column 'question' for the input 'question' (did you mean 'questions'?) "
                    "(columns: id, questions); name its column with --map question=COLUMN");
}

// Each byte of the file is read once: a record that spans many lines is never split again for each line it gains,
// and a header's columns are checked by hash, not each against all before it (both took time in the square of
// their size, minutes for the files below).
TEST_CASE("CSV: a quoted field of 150,000 lines, an unterminated quote in 400 KB, and 1,000,000 columns read in one pass", "[app][batch]") {
  test::TempDir dir;
  std::string field;
  for (int i = 0; i < 150000; ++i) field += "line " + std::to_string(i) + "\n";
  field.pop_back();
  auto tall = dir.write("tall.csv", "id,text\n1,\"" + field + "\"\n2,short\n");
  auto rows = all_rows(tall);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].columns["text"] == field);
  CHECK(rows[1].line == 150002);
  CHECK(rows[1].columns["text"] == "short");

  std::string never_closed = "id,text\n1,\"";
  for (int i = 0; i < 80000; ++i) never_closed += "more\n";  // 400 KB, one line at a time
  auto open = dir.write("open.csv", never_closed);
  rows = all_rows(open);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].error == open.string() + ":2: a quoted field is not closed before the end of the file");

  std::string header, row;
  for (int i = 0; i < 1000000; ++i) {
    header += (i ? ",c" : "c") + std::to_string(i);
    row += (i ? "," : "") + std::to_string(i % 10);
  }
  auto wide = dir.write("wide.csv", header + "\n" + row + "\n");
  app::DataReader reader(wide);
  CHECK(reader.header().size() == 1000000);
  app::DataRow one;
  REQUIRE(reader.next(one));
  CHECK(one.error.empty());
  CHECK(one.columns.size() == 1000000);
  CHECK(one.columns["c999999"] == "9");
  Value inputs, rest;
  app::ColumnMap({}, inputs_named({"c5"})).split(one.columns, inputs, rest);
  CHECK(inputs == Value{{"c5", "5"}});
  CHECK(rest.size() == 999999);
  CHECK(header_error(dir.write("wide_twice.csv", header + ",c999999\n")) ==
        "data.bad_header: " + (dir.path() / "wide_twice.csv").string() +
            ":1: the header row names the column 'c999999' twice");
  // A missing column's message names the first columns, not a million of them.
  CHECK(test::error_of([&] { app::ColumnMap({}, inputs_named({"question"})).check_header(reader.header()); }) ==
        "the data has no column 'question' for the input 'question' (columns: c0, c1, c2, c3, c4, c5, c6, c7, c8, "
        "c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, ... (1000000 in all)); name its column with --map "
        "question=COLUMN");
}

TEST_CASE("JSON lines: a row of 1,000,000 keys is read in one pass, a key repeated keeps its last value", "[app][batch]") {
  test::TempDir dir;
  std::string text = "{";
  for (int i = 0; i < 1000000; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i % 10) + ",";  // 12 MB
  text += "\"k7\":\"again\"}\n";
  auto rows = all_rows(dir.write("wide.jsonl", text));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].columns.size() == 1000000);
  CHECK(rows[0].error.empty());
  CHECK(rows[0].columns["k999999"] == 9);
  CHECK(rows[0].columns["k7"] == "again");
  CHECK(rows[0].columns.begin().key() == "k0");
}
