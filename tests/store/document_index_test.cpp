// The FTS5 document index: chunks with their lines, refreshes that read only what changed, and queries that can be
// anything a model writes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/core/error.h"
#include "engine/store/document_index.h"

using namespace engine;
using namespace engine::store;

namespace {

struct IndexedFolder {
  std::vector<IndexedDocument> docs;
  std::map<std::string, std::string> texts;
  size_t reads = 0;
  void put(const std::string& path, const std::string& text, int64_t modified = 1) {
    texts[path] = text;
    for (auto& d : docs)
      if (d.path == path) {
        d.modified = modified;
        d.size = text.size();
        return;
      }
    docs.push_back({path, modified, text.size()});
  }
  DocumentIndex::Changes refresh(DocumentIndex& index) {
    return index.refresh(docs, [&](const IndexedDocument& d) -> std::optional<std::string> {
      ++reads;
      return texts.at(d.path);
    });
  }
};

}  // namespace

TEST_CASE("document index: hits ranked with their file, line and snippet", "[store][index]") {
  DocumentIndex index(":memory:", "/docs");
  IndexedFolder f;
  f.put("refunds.md", "# Refunds\n\nRefunds take 14 days for card payments.\nCash refunds are immediate.\n\n"
                      "## Exceptions\n\nSale items are final.\n");
  f.put("setup.md", "# Setup\n\nInstall the engine. It takes a minute.\n");
  f.put("refund-faq.md", "Refund refund refund: see refunds.md for the refund policy.\n");
  auto changes = f.refresh(index);
  CHECK(changes.added == 3);
  CHECK(index.documents() == 3);
  auto hits = index.search(fts_query_of("how long do card payments take?"), 5);
  REQUIRE(hits.size() >= 2);
  CHECK(hits[0].path == "refunds.md");
  CHECK(hits[0].line == 3);  // the line of the first matched term in its chunk
  CHECK(hits[0].snippet.find("Refunds [take] 14 days for [card] [payments]") != std::string::npos);
  auto sale = index.search(fts_query_of("\"sale items\""), 5);
  REQUIRE(sale.size() == 1);
  CHECK(sale[0].line == 8);
  CHECK(index.search(fts_query_of("zebra"), 5).empty());
}

TEST_CASE("document index: a hit cites the line its snippet quotes, not the chunk's first match", "[store][index]") {
  DocumentIndex index(":memory:", "/docs");
  IndexedFolder f;
  // One chunk: a table whose header names one term, and the passage below naming them all.
  f.put("providers.md", "# Providers\n\n| preset | key |\n|---|---|\n| `openai` | `$OPENAI_API_KEY` |\n\n"
                        "Keys come from the environment only. They are never written to traces or results.\n");
  f.refresh(index);
  auto hits = index.search(fts_query_of("keys written to traces"), 5);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].snippet == "...[Keys] come from the environment only. They are never [written] to [traces] or results.");
  CHECK(hits[0].line == 7);
}

TEST_CASE("document index: a '#' in a fenced block is code, not a heading that cuts the chunk", "[store][index]") {
  DocumentIndex index(":memory:", "/docs");
  IndexedFolder f;
  f.put("setup.md", "# Setup\n\nInstall it:\n\n```sh\n# as root\napt install engine\n```\n\nThen run the demo.\n");
  f.refresh(index);
  // One chunk: both words match in it, so the hit is the section, from its heading.
  auto hits = index.search("\"install\" AND \"demo\"", 5);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].path == "setup.md");
  CHECK(hits[0].line == 3);
}

TEST_CASE("document index: a refresh reads only new and changed documents", "[store][index]") {
  DocumentIndex index(":memory:", "/docs");
  IndexedFolder f;
  for (int i = 0; i < 50; ++i) f.put("doc" + std::to_string(i) + ".md", "plain text number " + std::to_string(i));
  f.refresh(index);
  CHECK(f.reads == 50);
  f.put("doc7.md", "now about giraffes", 2);
  f.docs.erase(f.docs.begin() + 3);  // doc3 is gone
  f.put("new.md", "giraffes again");
  auto changes = f.refresh(index);
  CHECK(changes.updated == 1);
  CHECK(changes.added == 1);
  CHECK(changes.removed == 1);
  CHECK(changes.unchanged == 48);
  CHECK(f.reads == 52);
  auto hits = index.search(fts_query_of("giraffes"), 5);
  CHECK(hits.size() == 2);
  CHECK(index.search(fts_query_of("number"), 60).size() == 48);  // every doc but the changed and the new
  CHECK(index.documents() == 50);
}

TEST_CASE("document index: any text becomes a query that cannot be a syntax error", "[store][index]") {
  CHECK(fts_query_of("how long? (refunds) AND NOT x*") == "\"long\" OR \"refunds\" OR \"NOT\" OR \"x\"");
  CHECK(fts_query_of("how are you") == "\"how\" OR \"are\" OR \"you\"");  // nothing but small words: kept
  CHECK(fts_query_of("\"refund policy\" now") == "\"refund policy\" OR \"now\"");
  CHECK(fts_query_of("unclosed \"quote here") == "\"unclosed\" OR \"quote\" OR \"here\"");
  CHECK(fts_query_of("?!*()^:-") == "");
  CHECK(fts_query_of(std::string(100000, 'a') + " b").size() > 100000);
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "w" + std::to_string(i) + " ";
  std::string capped = fts_query_of(many);
  CHECK(std::count(capped.begin(), capped.end(), 'w') == 32);
  DocumentIndex index(":memory:", "/docs");
  IndexedFolder f;
  f.put("a.md", "NEAR AND OR NOT column: text\n");
  f.refresh(index);
  for (const std::string& hostile : std::vector<std::string>{"NEAR(", "a OR", "text:", "\"", "*", std::string("nul\0byte", 8), "caf\xc3\xa9", "\xff\xfe"})
    CHECK_NOTHROW(index.search(fts_query_of(hostile), 5));
  CHECK(index.search(fts_query_of("NEAR( AND"), 5).size() == 1);
  // A raw FTS5 query that is not one is a clear error, never a crash.
  try {
    index.search("NEAR(", 5);
    FAIL("searched");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::StoreBadQuery);
    CHECK(e.message().find("fts5: syntax error") != std::string::npos);
  }
}

TEST_CASE("document index: an index made for another folder is made again", "[store][index]") {
  std::string file = "/tmp/engine-index-test-" + std::to_string(::getpid()) + ".sqlite";
  {
    DocumentIndex index(file, "/docs/a");
    IndexedFolder f;
    f.put("x.md", "xylophone");
    f.refresh(index);
    CHECK(index.documents() == 1);
  }
  {
    DocumentIndex same(file, "/docs/a");
    CHECK(same.documents() == 1);  // kept between processes
  }
  {
    DocumentIndex other(file, "/docs/b");
    CHECK(other.documents() == 0);
    CHECK(other.search(fts_query_of("xylophone"), 5).empty());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((file + suffix).c_str());
}
