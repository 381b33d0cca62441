// search_docs over a folder: Markdown, text and HTML indexed, hidden and other files left out, the index kept in a
// file and brought up to date after a change, on 10,000 files, with whatever queries a model writes.
#include <catch2/catch.hpp>

#include <fstream>

#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/net/io_threads.h"
#include "engine/parse/schema_patterns.h"
#include "engine/tools/builtin_tools.h"
#include "engine/tools/document_search.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::TempDir;

namespace {

std::shared_ptr<const FileAccess> docs_access(const TempDir& dir) {
  return std::make_shared<const FileAccess>(std::vector<FileGrant>{FileGrant{dir.path() / "docs", "./docs", false}});
}

}  // namespace

TEST_CASE("search docs: Markdown, text and HTML found with file and line", "[tools][search_docs]") {
  TempDir dir;
  dir.write("docs/refunds.md", "# Refunds\n\nCard refunds take 14 days.\n");
  dir.write("docs/faq/shipping.html", "<html><body><h1>Shipping</h1><p>Parcels ship in 2 days.</p></body></html>");
  dir.write("docs/notes.txt", "Warranty lasts two years.\n");
  dir.write("docs/.hidden/secret.md", "refunds are secret here");
  dir.write("docs/data.json", "{\"refunds\": 1}");
  GrantedToolOptions o;
  o.capabilities.files = docs_access(dir);
  o.index_file = (dir.path() / "cache/docs.sqlite").string();
  auto tool = make_builtin_tool("search_docs", "", "", nullptr, schema::SchemaOptions{parse::schema_patterns()}, o);
  auto instance = tool->instantiate({});
  CHECK(instance->invoke({{"query", "how long do refunds take?"}}).text() ==
        "refunds.md:3: ...Card [refunds] [take] 14 days.");  // the line with the most of the words, not the heading
  CHECK(instance->invoke({{"query", "parcels"}}).text() == "faq/shipping.html:3: ...[Parcels] ship in 2 days.");
  CHECK(instance->invoke({{"query", "zebra"}}).text() == "no document matches 'zebra'");
  CHECK(instance->invoke({{"query", "?!"}}).text() == "tool 'search_docs' failed: the query has no word to search for");
  CHECK(std::filesystem::exists(dir.path() / "cache/docs.sqlite"));  // made where the workflow says
}

// A served run's search runs on a fiber: its SQLite work is handed to the I/O threads' worker, with the same answers.
TEST_CASE("search docs: a search from a fiber finds what a search from a thread does", "[tools][search_docs]") {
  TempDir dir;
  dir.write("docs/refunds.md", "# Refunds\n\nCard refunds take 14 days.\n");
  KeywordSearch search(docs_access(dir), ":memory:", std::make_shared<net::IoThreads>());
  FiberPool pool(1);
  std::vector<store::DocumentHit> hits;
  pool.spawn([&] { hits = search.search("refunds", 5); });
  pool.join();
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].path == "refunds.md");
  CHECK(hits[0].line == 1);
  CHECK(hits[0].snippet == "# [Refunds] Card [refunds] take 14 days.");
}

TEST_CASE("search docs: 10,000 files indexed once, a change indexed alone, hostile queries answered", "[tools][search_docs]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "docs");
  for (int i = 0; i < 10'000; ++i) {
    std::ofstream out(dir.path() / "docs" / ("doc" + std::to_string(i) + ".md"));
    out << "# Document " << i << "\n\nThis page covers topic " << i % 97 << " and item " << i << ".\n";
  }
  KeywordSearch search(docs_access(dir), (dir.path() / "index.sqlite").string());
  auto first = search.refresh();
  CHECK(first.added == 10'000);
  auto hits = search.search("topic 42", 5);
  REQUIRE(hits.size() == 5);
  CHECK(hits[0].snippet.find("[42]") != std::string::npos);  // "topic" is on every page: left out of the ranking
  {
    std::ofstream out(dir.path() / "docs/doc5.md");
    out << "Now about marmalade, a longer page than before.\n";
  }
  auto second = search.refresh();
  CHECK(second.updated == 1);
  CHECK(second.unchanged == 9'999);
  auto marmalade = search.search("marmalade", 5);
  REQUIRE(marmalade.size() == 1);
  CHECK(marmalade[0].path == "doc5.md");
  for (const std::string& hostile : {std::string("NEAR(topic"), std::string("\"unclosed"), std::string("topic*"),
                                     std::string(1 << 20, 'x'), std::string("a\0b", 3), std::string("OR AND NOT")})
    CHECK_NOTHROW(search.search(hostile, 5));
  // Kept between processes: a new search over the same file reads nothing again.
  KeywordSearch again(docs_access(dir), (dir.path() / "index.sqlite").string());
  CHECK(again.refresh().unchanged == 10'000);
}

TEST_CASE("search docs: the default index lives in the workflow's folder, named for its root", "[tools][search_docs]") {
  auto a = default_index_file("/wf", "/data/docs");
  auto b = default_index_file("/wf", "/other/docs");
  CHECK(a.parent_path() == "/wf/.engine/index");
  CHECK(a.filename().string().rfind("docs-", 0) == 0);  // and a hash of the folder's path
  CHECK(a != b);
  CHECK(a == default_index_file("/wf", "/data/docs"));
}
