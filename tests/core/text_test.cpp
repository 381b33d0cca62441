#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/text.h"

using namespace engine;

TEST_CASE("did you mean picks a close candidate only", "[core]") {
  std::vector<std::string> keys = {"stop", "prompt", "parser", "max_iterations"};
  CHECK(did_you_mean("stopp", keys) == " (did you mean 'stop'?)");
  CHECK(did_you_mean("max_iteration", keys) == " (did you mean 'max_iterations'?)");
  CHECK(did_you_mean("zzzzzz", keys).empty());
  CHECK(did_you_mean("ecoh", {"echo", "current_time"}) == " (did you mean 'echo'?)");
}

TEST_CASE("an error formats as file:line:col with a caret", "[core]") {
  SourceText src("w.yaml", "a: 1\n  stopp: 2\n");
  Error e = located_error(ErrorKind::SpecUnknownKey, "unknown key 'stopp'", src, 2, 3);
  CHECK(e.formatted() == "w.yaml:2:3: unknown key 'stopp'\n    stopp: 2\n    ^");
  CHECK(std::string(e.what()) == "w.yaml:2:3: unknown key 'stopp'");
}

TEST_CASE("excerpts are short, escaped and never cut a character", "[core]") {
  CHECK(quote_excerpt("a\nb") == "'a\\nb'");
  CHECK(quote_excerpt("日本語", 2) == "'日本...'");
}

TEST_CASE("excerpts escape control bytes, so a server's text cannot drive the terminal", "[core]") {
  CHECK(quote_excerpt("red \x1b[31mtext\x1b[0m") == "'red \\x1b[31mtext\\x1b[0m'");
  CHECK(quote_excerpt("bell\a del\x7f nul" + std::string(1, '\0')) == "'bell\\x07 del\\x7f nul\\x00'");
  CHECK(quote_excerpt("csi \xc2\x9b" "2J é") == "'csi \\x9b2J é'");
  CHECK(printable_excerpt("a\nb\tc", 3) == "a\\nb...");
  CHECK(printable_excerpt("日本語テキスト", 3) == "日本語...");
}

TEST_CASE("terminal_safe escapes control bytes but newlines and tabs, and leaves clean text as it is", "[core]") {
  CHECK(terminal_safe("plain\ttext\nnext line é 日本") == "plain\ttext\nnext line é 日本");
  CHECK(terminal_safe("a\x1b[31mred\rb\x7f") == "a\\x1b[31mred\\x0db\\x7f");
  CHECK(terminal_safe("csi \xc2\x9b" "2J, nbsp \xc2\xa0 kept") == "csi \\x9b2J, nbsp \xc2\xa0 kept");
  CHECK(terminal_safe("") == "");
}

TEST_CASE("fenced_blocks: the insides of ``` fences, tag line dropped, an unclosed one to the end", "[core]") {
  using V = std::vector<std::string_view>;
  CHECK(fenced_blocks("a\n```json\n{\"x\": 1}\n```\nb\n```\nplain\n```") == V{"{\"x\": 1}", "plain"});
  CHECK(fenced_blocks("```\nunclosed {") == V{"unclosed {"});
  CHECK(fenced_blocks("no fences, ``` only a tag").empty());
  CHECK(fenced_blocks("").empty());
  std::string many;
  for (int i = 0; i < 100000; ++i) many += "```\n{}\n```";
  CHECK(fenced_blocks(many).size() == 100000);
}

TEST_CASE("text: XML character references are decoded, anything else is kept as written", "[core][text]") {
  CHECK(decode_xml_entities("a &lt; b &amp;&amp; c &gt; d &quot;q&quot; &apos;s&apos;") == "a < b && c > d \"q\" 's'");
  CHECK(decode_xml_entities("&#60;tool&#x3E; &#xe9; &#128512;") == "<tool> \xC3\xA9 \xF0\x9F\x98\x80");
  CHECK(decode_xml_entities("AT&T &unknown; &#; &#xZZ; &#0; &#xD800; &#1114112; &") ==
        "AT&T &unknown; &#; &#xZZ; &#0; &#xD800; &#1114112; &");
  CHECK(decode_xml_entities("&amp;lt;") == "&lt;");  // once, as an XML reader decodes
}
