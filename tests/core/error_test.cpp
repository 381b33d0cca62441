// What an error quotes of its source line: the whole line, or a window around the column when the line is long.
#include <catch2/catch.hpp>

#include "engine/core/error.h"

using namespace engine;

namespace {

// "0123456789" over and over, so that a window's place in the line shows in its text.
std::string digits(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>('0' + i % 10);
  return s;
}

}  // namespace

TEST_CASE("a long line is quoted as 160 characters around the column, the caret under its character", "[core]") {
  std::string line = digits(10000);
  Error middle(ErrorKind::SpecTooDeep, "nested too deeply", SourceLoc{"min.yaml", 1, 5000}, line);
  CHECK(middle.formatted() == "min.yaml:1:5000: nested too deeply\n  ..." + line.substr(4919, 160) + "...\n  " +
                                  std::string(83, ' ') + "^");
  CHECK(line[4999] == line.substr(4919, 160)[80]);  // the caret's character is the column's

  Error start(ErrorKind::SpecTooDeep, "m", SourceLoc{"min.yaml", 1, 10}, line);
  CHECK(start.formatted() == "min.yaml:1:10: m\n  " + line.substr(0, 160) + "...\n  " + std::string(9, ' ') + "^");
  Error end(ErrorKind::SpecTooDeep, "m", SourceLoc{"min.yaml", 1, 9999}, line);
  CHECK(end.formatted() == "min.yaml:1:9999: m\n  ..." + line.substr(9840) + "\n  " + std::string(3 + 158, ' ') + "^");
  // Without a column the line's start is quoted.
  Error no_column(ErrorKind::SpecTooDeep, "m", SourceLoc{"min.yaml", 1, 0}, line);
  CHECK(no_column.formatted() == "min.yaml:1: m\n  " + line.substr(0, 160) + "...");
}

TEST_CASE("a line of 160 characters or fewer is quoted whole", "[core]") {
  std::string line = digits(160);
  Error e(ErrorKind::SpecUnknownKey, "m", SourceLoc{"w.yaml", 3, 160}, line);
  CHECK(e.formatted() == "w.yaml:3:160: m\n  " + line + "\n  " + std::string(159, ' ') + "^");
}

TEST_CASE("a long line's window is cut between characters, never inside one", "[core]") {
  std::string line;
  for (int i = 0; i < 300; ++i) line += "\xc3\xa9";  // é, two bytes each
  LineExcerpt x = excerpt_line(line, 200);
  std::string window;
  for (int i = 0; i < 160; ++i) window += "\xc3\xa9";
  CHECK(x.text == "..." + window + "...");
  CHECK(x.col == 200 - 119 + 3);
}
