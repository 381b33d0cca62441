// Merging a batch's shards: one file in the data's order, with missing rows, rows there twice and torn lines named.
#include <catch2/catch.hpp>

#include "engine/app/batch_merge.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_text.h"
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
  CHECK(r.missing == std::vector<size_t>{1, 2, 4, 5});
  CHECK(r.duplicates == std::vector<size_t>{0});
  CHECK(r.torn == std::vector<std::string>{b.string() + ":2"});
  CHECK(read_file(out) == merge_line(0, "ok") + merge_line(3, "ok"));
  CHECK(r.to_json()["missing"] == Value::array({1, 2, 4, 5}));
}

TEST_CASE("merge: a file that is not results, or the output among the inputs, is refused", "[app][batch]") {
  test::TempDir dir;
  auto a = dir.write("a.jsonl", merge_line(0, "ok"));
  auto bad = dir.write("bad.jsonl", "hello\n");
  CHECK_THROWS_WITH(app::merge_results({a, bad}, dir.path() / "o.jsonl", std::nullopt),
                    bad.string() + ":1: not a batch's result line");
  CHECK_THROWS_WITH(app::merge_results({a}, a, std::nullopt),
                    "--out " + a.string() + " is one of the files to merge; give a new file");
  CHECK(read_file(a) == merge_line(0, "ok"));
}
