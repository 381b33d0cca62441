// HTML reduced to what a reader sees, in one linear pass whatever the page holds.
#include <catch2/catch.hpp>

#include "engine/tools/html_text.h"

using engine::tools::html_to_text;
using engine::tools::looks_like_html;

TEST_CASE("html text: scripts and styles dropped, blocks on their own lines, references decoded", "[tools][html]") {
  std::string page = R"(<!DOCTYPE html><html><head><title>T</title><style>p {color: red}</style>
    <script>var x = "<p>not text</p>";</script></head>
    <body><nav>Home</nav><h1>Refunds</h1><p>Refunds take <b>14</b>&nbsp;days &amp; are
    final.</p><!-- a comment <p>hidden</p> --><ul><li>one</li><li>two</li></ul>
    <table><tr><td>a</td><td>b</td></tr></table><p>caf&#233; &mdash; done</p></body></html>)";
  CHECK(html_to_text(page) ==
        "Home\n\n# Refunds\n\nRefunds take 14 days & are final.\n\n- one\n- two\n\na b\n\ncaf\xC3\xA9 \xE2\x80\x94 done");
}

TEST_CASE("html text: unclosed markup costs one pass", "[tools][html]") {
  std::string hostile(2'000'000, '<');
  CHECK(html_to_text(hostile) == hostile);  // no '>' anywhere: all of it is text
  std::string scripts;
  for (int i = 0; i < 100'000; ++i) scripts += "<script>";
  CHECK(html_to_text(scripts + "x").empty());
  CHECK(html_to_text("a <b c").find("a <b c") == 0);
}

TEST_CASE("html text: a page is known by its type or its first bytes", "[tools][html]") {
  CHECK(looks_like_html("text/html; charset=utf-8", ""));
  CHECK(looks_like_html("", "  <!doctype html><p>x"));
  CHECK(looks_like_html("application/octet-stream", "<HTML>"));
  CHECK_FALSE(looks_like_html("text/plain", "# Markdown <b>"));
}
