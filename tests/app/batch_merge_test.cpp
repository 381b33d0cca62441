// Merging a batch's shards: one file in the data's order, with missing rows, rows there twice and torn lines named.
#include <catch2/catch.hpp>

#include "engine/app/batch_merge.h"
#include "engine/app/batch_results.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_text.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::string merge_line(size_t index, const char* status) {
  return to_json_text(Value{{"index", index}, {"status", status}, {"output", std::to_string(index) + status}}) + "\n";
}

}  // namespace

TEST_CASE("merge: shards' lines in the data's order, complete when every row is there once", "[app][batch]") {
  test::TempDir dir;
  auto a = dir.write("a.jsonl", merge_line(2, "ok") + merge_line(0, "ok"));
  auto b = dir.write("b.jsonl", merge_line(1, "failed") + merge_line(3, "ok"));
  auto out = dir.path() / "all.jsonl";
  app::MergeReport r = app::merge_results({a, b}, out, 4);
  CHECK(r.complete());
  CHECK(r.lines == 4);
  CHECK(read_file(out) == merge_line(0, "ok") + merge_line(1, "failed") + merge_line(2, "ok") + merge_line(3, "ok"));
}

TEST_CASE("merge: rows missing (also past the last line seen), rows twice (the ok line kept) and torn lines are reported", "[app][batch]") {
  test::TempDir dir;
  auto a = dir.write("a.jsonl", merge_line(0, "failed") + merge_line(3, "ok"));
  auto b = dir.write("b.jsonl", merge_line(0, "ok") + R"({"index": 5, "sta)");
  auto out = dir.path() / "all.jsonl";
  app::MergeReport r = app::merge_results({a, b}, out, 6);
  CHECK(!r.complete());
  CHECK(r.missing == std::vector<app::RowRange>{{1, 2}, {4, 5}});
  CHECK(r.missing_rows == 4);
  CHECK(r.duplicates == std::vector<size_t>{0});
  CHECK(r.torn == std::vector<std::string>{b.string() + ":2"});
  CHECK(read_file(out) == merge_line(0, "ok") + merge_line(3, "ok"));
  CHECK(r.to_json()["missing"] == Value::parse("[[1, 2], [4, 5]]"));
  CHECK(r.to_json()["missing_rows"] == 4);
}

TEST_CASE("merge: a file that is not results, or the output among the inputs, is refused", "[app][batch]") {
  test::TempDir dir;
  auto a = dir.write("a.jsonl", merge_line(0, "ok"));
  auto bad = dir.write("bad.jsonl", "hello\n");
  CHECK_THROWS_WITH(app::merge_results({a, bad}, dir.path() / "o.jsonl", std::nullopt),
                    bad.string() + " is not a batch's results file (it begins with 'hello\\n', not a JSON line); merge "
                                   "only the results files of engine batch");
  auto later_bad = dir.write("later.jsonl", merge_line(0, "ok") + "hello\n");
  CHECK_THROWS_WITH(app::merge_results({later_bad}, dir.path() / "o.jsonl", std::nullopt),
                    later_bad.string() + ":2: not a batch's result line");
  CHECK_THROWS_WITH(app::merge_results({a}, a, std::nullopt),
                    "--out " + a.string() + " is one of the files to merge; give a new file");
  CHECK(read_file(a) == merge_line(0, "ok"));
}

TEST_CASE("merge: a row index of 10^12 costs one missing range, and an index past 2^62 is not a result line", "[app][batch]") {
  test::TempDir dir;
  auto far = dir.write("far.jsonl", merge_line(0, "ok") + merge_line(1000000000000, "ok"));
  auto out = dir.path() / "all.jsonl";
  app::MergeReport r = app::merge_results({far}, out, std::nullopt);
  CHECK(r.rows == 1000000000001);
  CHECK(r.missing == std::vector<app::RowRange>{{1, 999999999999}});
  CHECK(r.missing_rows == 999999999999);
  CHECK(r.lines == 2);
  auto wrapping = dir.write("wrap.jsonl", merge_line(0, "ok") + merge_line(SIZE_MAX, "ok"));
  CHECK_THROWS_WITH(app::merge_results({wrapping}, out, std::nullopt), wrapping.string() + ":2: not a batch's result line");
}

TEST_CASE("merge: a results file a batch still holds is refused, never merged half written", "[app][batch]") {
  test::TempDir dir;
  auto path = dir.path() / "a.jsonl";
  app::ResultsFile running(path, false);
  running.append(Value{{"index", 0}, {"status", "ok"}, {"inputs", Value::object()}});
  std::string kind;
  CHECK(test::error_of([&] { app::merge_results({path}, dir.path() / "o.jsonl", std::nullopt); }, &kind) ==
        "an engine batch (or eval) is still writing '" + path.string() + "'; merge it once it has ended");
  CHECK(kind == "batch.busy");
  CHECK(!std::filesystem::exists(dir.path() / "o.jsonl"));
}

TEST_CASE("merge: a line past 16 MiB is refused, not read whole", "[app][batch]") {
  test::TempDir dir;
  auto big = dir.write("big.jsonl", merge_line(0, "ok") + R"({"index":1,"status":"ok","output":")" +
                                        std::string((size_t{16} << 20) + 10, 'x') + "\"}\n");
  CHECK(test::error_of([&] { app::merge_results({big}, dir.path() / "o.jsonl", std::nullopt); }) ==
        big.string() + ":2: not a batch's result line");
}
