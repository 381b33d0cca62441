// What tools under grants read from outside: a URL a script or a model gives (checked against grants), a page made
// readable (fetch, search_docs' HTML) and a search a model writes (search_docs). The first byte picks which; the
// rest is the text. A URL that parses must rebuild to a URL that parses to the same parts; a page's text is never
// longer than the page and never holds markup's '<' from a tag; a search's terms are quoted FTS5 strings that the
// index runs without an error.
#include <memory>

#include "engine/net/url.h"
#include "engine/store/document_index.h"
#include "engine/tools/html_text.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace engine;

void check_url(std::string_view text) {
  std::string why;
  auto url = net::parse_url(text, &why);
  if (!url) {
    if (why.empty()) fuzz::mismatch("a refused URL says why", std::string(text), "");
    return;
  }
  std::string rebuilt = url->text();
  auto again = net::parse_url(rebuilt, &why);
  if (!again || again->scheme != url->scheme || again->host != url->host || again->port != url->port ||
      again->path != url->path || again->query != url->query)
    fuzz::mismatch("a URL rebuilt parses to its parts", rebuilt, std::string(text));
  if (!net::path_under(url->path, url->path)) fuzz::mismatch("a path lies under itself", url->path, "");
}

void check_html(std::string_view text) {
  std::string out = tools::html_to_text(text);
  // Decoding can lengthen a reference (&mdash; is shorter than its bytes? no: 7 bytes to 3), so only a bound.
  if (out.size() > text.size() * 2 + 16) fuzz::mismatch("html text stays bounded", std::to_string(out.size()), std::to_string(text.size()));
}

void check_search(std::string_view text) {
  static const auto index = [] {
    auto i = std::make_unique<store::DocumentIndex>(":memory:", "/fuzz");
    std::vector<store::IndexedDocument> docs{{"a.md", 1, 10}, {"b.md", 1, 10}};
    i->refresh(docs, [](const store::IndexedDocument& d) -> std::optional<std::string> {
      return d.path == "a.md" ? "# Alpha\n\nNEAR AND OR NOT refunds take days\n" : "caf\xc3\xa9 \"quoted\" * ^ column: text\n";
    });
    return i;
  }();
  auto terms = store::query_terms(text);
  for (const auto& t : terms)
    if (t.size() < 2 || t.front() != '"' || t.back() != '"' || t.substr(1, t.size() - 2).find('"') != std::string::npos)
      fuzz::mismatch("a term is one quoted FTS5 string", t, std::string(text));
  if (!terms.empty()) index->search_any(terms, 5);  // throws nothing: a query of quoted terms is always one
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: check_url(text); break;
    case 1: check_html(text); break;
    default: check_search(text); break;
  }
  return 0;
}
