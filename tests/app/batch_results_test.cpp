// A batch's results file: whole lines only, what an earlier batch finished kept, a torn last line cut, failed lines
// dropped to be run again, and the file put in the data's order.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "engine/app/batch_results.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lock.h"
#include "engine/core/json_text.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::string result_line(size_t index, const char* status, const std::string& question) {
  return to_json_text(Value{{"index", index}, {"status", status}, {"inputs", {{"q", question}}}, {"output", "x"}}) + "\n";
}

std::string inputs_text(const std::string& question) { return to_json_text(Value{{"q", question}}); }

}  // namespace

TEST_CASE("results: a new file is created, and appended lines are whole and found again on resume", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.path() / "out.jsonl";
  {
    app::ResultsFile results(path, false);
    CHECK(results.resumed().ok == 0);
    results.append(Value{{"index", 1}, {"status", "ok"}, {"inputs", {{"q", "b"}}}});
    results.append(Value{{"index", 0}, {"status", "failed"}, {"inputs", {{"q", "a"}}}});
  }
  app::ResultsFile again(path, false);
  CHECK(again.resumed().ok == 1);
  CHECK(again.resumed().failed == 1);
  CHECK(again.done(0, inputs_text("a")));
  CHECK(again.done(1, inputs_text("b")));
  CHECK(!again.done(2, inputs_text("c")));
  CHECK_THROWS_WITH(again.done(1, inputs_text("changed")),
                    path.string() + " has a result for row 1 run with other inputs than the data's: it was made from "
                                    "other data. Give --out a new file to start again");
  again.sort_by_index();
  CHECK(read_file(path) == to_json_text(Value{{"index", 0}, {"status", "failed"}, {"inputs", {{"q", "a"}}}}) + "\n" +
                               to_json_text(Value{{"index", 1}, {"status", "ok"}, {"inputs", {{"q", "b"}}}}) + "\n");
}

TEST_CASE("results: a torn last line (a batch killed while writing it) is cut off, the lines before it kept", "[app][batch]") {
  test::TempDir dir;
  std::string whole = result_line(0, "ok", "a") + result_line(1, "ok", "b");
  auto path = dir.write("out.jsonl", whole + R"({"index":2,"status":"ok","inp)");
  app::ResultsFile results(path, false);
  CHECK(results.resumed().cut_torn);
  CHECK(results.resumed().ok == 2);
  CHECK(!results.done(2, inputs_text("c")));
  CHECK(read_file(path) == whole);
  results.append(Value{{"index", 2}, {"status", "ok"}, {"inputs", {{"q", "c"}}}, {"output", "x"}});
  CHECK(read_file(path) == whole + result_line(2, "ok", "c"));
}

TEST_CASE("results: a whole last line without its newline is kept and ended", "[app][batch]") {
  test::TempDir dir;
  std::string line = result_line(0, "ok", "a");
  auto path = dir.write("out.jsonl", line.substr(0, line.size() - 1));
  app::ResultsFile results(path, false);
  CHECK(!results.resumed().cut_torn);
  CHECK(results.done(0, inputs_text("a")));
  results.append(Value{{"index", 1}, {"status", "ok"}, {"inputs", {{"q", "b"}}}, {"output", "x"}});
  CHECK(read_file(path) == line + result_line(1, "ok", "b"));
}

TEST_CASE("results: --retry-failed drops the failed lines, so their rows run again", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.write("out.jsonl", result_line(0, "failed", "a") + result_line(1, "ok", "b") +
                                         result_line(2, "failed", "c"));
  app::ResultsFile results(path, true);
  CHECK(results.resumed().dropped == 2);
  CHECK(results.resumed().ok == 1);
  CHECK(!results.done(0, inputs_text("a")));
  CHECK(results.done(1, inputs_text("b")));
  CHECK(read_file(path) == result_line(1, "ok", "b"));
  results.append(Value{{"index", 0}, {"status", "ok"}, {"inputs", {{"q", "a"}}}, {"output", "x"}});
  CHECK(read_file(path) == result_line(1, "ok", "b") + result_line(0, "ok", "a"));
}

// Sorting copies each line from where it was written or found: no line is read back to learn its index. Whatever
// the file went through first (kept as found, a torn line cut, failed lines dropped), the lines end in data order,
// whole, a line found twice kept twice.
TEST_CASE("results: the lines found, cut or dropped on opening, then appended, are sorted whole", "[app][batch]") {
  test::TempDir dir;
  auto line = [](size_t index, const char* status) { return result_line(index, status, std::to_string(index)); };
  auto appended = [](app::ResultsFile& results, size_t index) {
    results.append(Value{{"index", index}, {"status", "ok"}, {"inputs", {{"q", std::to_string(index)}}}, {"output", "x"}});
  };
  SECTION("kept as found, with an empty line and a line twice") {
    auto path = dir.write("out.jsonl", line(4, "ok") + "\n" + line(0, "ok") + line(4, "failed") + "\n");
    app::ResultsFile results(path, false);
    appended(results, 3);
    appended(results, 1);
    results.sort_by_index();
    CHECK(read_file(path) == line(0, "ok") + line(1, "ok") + line(3, "ok") + line(4, "ok") + line(4, "failed"));
    appended(results, 2);  // after a sort, lines go on where the sorted file ends
    results.sort_by_index();
    CHECK(read_file(path) ==
          line(0, "ok") + line(1, "ok") + line(2, "ok") + line(3, "ok") + line(4, "ok") + line(4, "failed"));
  }
  SECTION("a torn line cut") {
    auto path = dir.write("out.jsonl", line(2, "ok") + line(0, "ok") + R"({"index":1,"sta)");
    app::ResultsFile results(path, false);
    appended(results, 1);
    results.sort_by_index();
    CHECK(read_file(path) == line(0, "ok") + line(1, "ok") + line(2, "ok"));
  }
  SECTION("failed lines dropped") {
    auto path = dir.write("out.jsonl", line(3, "ok") + line(1, "failed") + line(0, "ok"));
    app::ResultsFile results(path, true);
    appended(results, 1);
    appended(results, 2);
    results.sort_by_index();
    CHECK(read_file(path) == line(0, "ok") + line(1, "ok") + line(2, "ok") + line(3, "ok"));
  }
}

TEST_CASE("results: a file that is not a batch's results is refused, not overwritten", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.write("notes.txt", result_line(0, "ok", "a") + "my notes\n" + result_line(1, "ok", "b"));
  CHECK_THROWS_WITH(app::ResultsFile(path, false),
                    path.string() + ":2: not a batch's result line; give --out a new file, or the results file of "
                                    "this batch");
  CHECK(read_file(path) == result_line(0, "ok", "a") + "my notes\n" + result_line(1, "ok", "b"));
}

TEST_CASE("results: a second batch writing the same file is refused while the first holds it", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.path() / "out.jsonl";
  {
    app::ResultsFile first(path, false);
    CHECK_THROWS_WITH(app::ResultsFile(path, false),
                      "another engine process (a batch, eval or merge) is using '" + path.string() +
                          "'; wait for it to end, or give --out another file");
  }
  CHECK_NOTHROW(app::ResultsFile(path, false));  // the first let go when it ended
}

// A torn line is one the engine began writing: only a last line that begins as every result line does is cut. A
// file that never was results (a user's notes without a final newline, a binary file) is refused and left whole.
TEST_CASE("results: a file that is not results is refused whole, never taken for a torn line and cut", "[app][batch]") {
  test::TempDir dir;
  std::string notes = "meeting notes: call the vendor";
  auto path = dir.write("notes.txt", notes);  // no final newline: it looks like a line cut short
  std::string fix = "give --out a new file, or the results file of this batch";
  std::string kind;
  CHECK(test::error_of([&] { app::ResultsFile(path, false); }, &kind) ==
        path.string() + " is not a batch's results file (it begins with 'meeting notes: c', not a JSON line); " + fix);
  CHECK(kind == "batch.bad_results");
  CHECK(read_file(path) == notes);

  auto json_notes = dir.write("todo.json", R"({"todo": "buy milk")");  // JSON-like, not ours
  CHECK(test::error_of([&] { app::ResultsFile(json_notes, false); }) ==
        json_notes.string() + ":1: not a batch's result line; " + fix);
  CHECK(read_file(json_notes) == R"({"todo": "buy milk")");

  auto short_torn = dir.write("short.jsonl", result_line(0, "ok", "a") + R"({"ind)");  // too short to tell
  CHECK(test::error_of([&] { app::ResultsFile(short_torn, false); }) == short_torn.string() + ":2: not a batch's result line; " + fix);
  CHECK(read_file(short_torn) == result_line(0, "ok", "a") + R"({"ind)");

  auto first_torn = dir.write("first.jsonl", R"({"index":0,"line":1,"sta)");  // killed while writing the first line
  app::ResultsFile resumed(first_torn, false);
  CHECK(resumed.resumed().cut_torn);
  CHECK(read_file(first_torn).empty());
}

TEST_CASE("results: 300 MB of NUL bytes is refused at its first byte, and left as it was", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.path() / "zeros.jsonl";
  { std::ofstream(path).put('\0'); }
  std::filesystem::resize_file(path, size_t{300} << 20);  // sparse: reads as NUL bytes, costs no disk
  CHECK(test::error_of([&] { app::ResultsFile(path, false); }) ==
        path.string() + " is not a batch's results file (it begins with '\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                        "\\x00\\x00\\x00\\x00\\x00\\x00\\x00', not a JSON line); give --out a new file, or the results file of this batch");
  CHECK(std::filesystem::file_size(path) == size_t{300} << 20);
}

TEST_CASE("results: a line past 16 MiB is refused, not read whole, and a result that long is written as a failed line", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.write("long.jsonl", result_line(0, "ok", "a") + R"({"index":1,"status":"ok","output":")" +
                                          std::string((size_t{16} << 20) + 10, 'x') + "\"}\n");
  CHECK(test::error_of([&] { app::ResultsFile(path, false); }) ==
        path.string() + ":2: not a batch's result line (longer than 16 MiB); give --out a new file, or the results "
                        "file of this batch");

  auto out = dir.path() / "out.jsonl";
  {
    app::ResultsFile results(out, false);
    results.append(Value{{"index", 0}, {"line", 1}, {"status", "ok"}, {"inputs", {{"q", "big"}}},
                         {"output", std::string((size_t{17} << 20), 'y')}});
  }
  app::ResultsFile again(out, false);  // every line it wrote, it reads back
  CHECK(again.resumed().failed == 1);
  CHECK(again.done(0, inputs_text("big")));
  Value line = Value::parse(read_file(out));
  CHECK(line["status"] == "failed");
  CHECK(line["error"]["kind"] == "batch.line_too_long");
  CHECK(line["error"]["message"] == "the result line would be 17 MiB, more than the 16 MiB a results file's line may "
                                    "hold; the output was left out");
  CHECK(!line.contains("output"));
}

// Sorting and --retry-failed write a new file beside the results and rename it over them. A symlink planted where
// that file once went (PATH.new) must not send the lines into another file.
TEST_CASE("results: a symlink planted beside the results redirects no rewrite, and the file keeps its permissions", "[app][batch]") {
  test::TempDir dir;
  auto victim = dir.write("victim.txt", "keep me\n");
  auto path = dir.write("out.jsonl", result_line(1, "ok", "b") + result_line(0, "failed", "a"));
  ::chmod(path.c_str(), 0600);
  std::filesystem::create_symlink(victim, dir.path() / "out.jsonl.new");
  {
    app::ResultsFile results(path, true);  // drops the failed line: a rewrite
    results.append(Value{{"index", 0}, {"status", "ok"}, {"inputs", {{"q", "a"}}}, {"output", "x"}});
    results.sort_by_index();  // another rewrite
  }
  CHECK(read_file(victim) == "keep me\n");
  CHECK(read_file(path) == result_line(0, "ok", "a") + result_line(1, "ok", "b"));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(std::filesystem::is_symlink(dir.path() / "out.jsonl.new"));  // left alone
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 3);  // no file left beside them

  // The results file itself is never written through a symlink: the rename would replace the link, not its file.
  auto link = dir.path() / "link.jsonl";
  std::filesystem::create_symlink(victim, link);
  CHECK(test::error_of([&] { app::ResultsFile(link, false); }) ==
        "'" + link.string() + "' is a symbolic link; name the file it points to");
  CHECK(read_file(victim) == "keep me\n");
}

// The batch holds its results for its whole life, through every rewrite: the lock is on the new file before it
// takes the name.
TEST_CASE("results: the batch's lock holds across a rewrite, so eval or merge can never slip in", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.write("out.jsonl", result_line(2, "ok", "c") + result_line(0, "failed", "a"));
  app::ResultsFile results(path, true);
  results.append(Value{{"index", 1}, {"status", "ok"}, {"inputs", {{"q", "b"}}}, {"output", "x"}});
  results.sort_by_index();
  CHECK(!open_locked(path, O_RDONLY, LockMode::Shared));
  CHECK(!open_locked(path, O_RDWR, LockMode::Exclusive));
}
