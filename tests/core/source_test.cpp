// A text embedded in a YAML file (an inline template) maps its lines and columns to where the user wrote them:
// plain and quoted scalars, literal blocks, lines written twice, and the expression wrapping the engine adds. A
// line that does not appear as it is (an escape changed it) maps to nothing rather than to a wrong place.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/source.h"

using namespace engine;

namespace {

const char* const kYaml =
    "steps:\n"                                         // 1
    "  a: {kind: template, template: \"Hi {{ name }}\"}\n"  // 2
    "  b:\n"                                           // 3
    "    kind: template\n"                             // 4
    "    template: |\n"                                // 5
    "      same line\n"                                // 6
    "      same line\n"                                // 7
    "      é {{ x | uper }}\n"                         // 8
    "  c: {kind: template, template: \"a\\tb {{ y }}\"}\n";  // 9

std::shared_ptr<const SourceText> yaml() { return std::make_shared<SourceText>("w.yaml", kYaml); }

SourceText embedded(std::string text, int line, int col, int wrap = 0) {
  return SourceText("w.yaml (x)", std::move(text), Embedding{yaml(), line, col, "steps.x.template", wrap});
}

}  // namespace

TEST_CASE("embedding: a quoted scalar on one line maps a column to the file's", "[core][source]") {
  SourceText t = embedded("Hi {{ name }}", 2, 33);  // the mark is the opening quote
  auto at = t.place_in_file(1, 7);                    // "name"
  REQUIRE(at);
  CHECK(at->str() == "w.yaml:2:40");
  CHECK(std::string(yaml()->line(2)).substr(39, 4) == "name");
}

TEST_CASE("embedding: a literal block maps each line in order, a line written twice to its own place",
          "[core][source]") {
  SourceText t = embedded("same line\nsame line\né {{ x | uper }}", 5, 15);
  CHECK(t.place_in_file(1, 1)->str() == "w.yaml:6:7");
  CHECK(t.place_in_file(2, 6)->str() == "w.yaml:7:12");
  CHECK(t.place_in_file(3, 10)->str() == "w.yaml:8:16");  // columns count characters: é is one
}

TEST_CASE("embedding: a line an escape changed maps to nothing, nor does a text not embedded", "[core][source]") {
  CHECK_FALSE(embedded("a\tb {{ y }}", 9, 33).place_in_file(1, 5));
  CHECK_FALSE(SourceText("t", "x").place_in_file(1, 1));
}

TEST_CASE("embedding: an expression's wrapping is not looked for, and its columns shift back", "[core][source]") {
  // compile_expression reads "{{ " + "name" + " }}": column 4 of that is column 1 of what the user wrote
  SourceText t = embedded("{{ Hi }}", 2, 33, 3);
  CHECK(t.place_in_file(1, 4)->str() == "w.yaml:2:34");
}

TEST_CASE("embedding: an error located in an embedded text points into the file, under its key", "[core][source]") {
  SourceText t = embedded("same line\nsame line\né {{ x | uper }}", 5, 15);
  Error e = located_error(ErrorKind::TemplateUnknownFilter, "unknown filter 'uper'", t, 3, 10);
  CHECK(e.formatted() ==
        "w.yaml:8:16: steps.x.template: unknown filter 'uper'\n"
        "        é {{ x | uper }}\n"
        "                 ^");
  Error plain = located_error(ErrorKind::TemplateSyntax, "bad", SourceText("t.j2", "{{ ]"), 1, 4);
  CHECK(plain.formatted() == "t.j2:1:4: bad\n  {{ ]\n     ^");
}

TEST_CASE("embedding: the last line of a long literal block maps there, each file line read once", "[core][source]") {
  // 50,000 lines: finding each from the file's start again would take billions of steps
  std::string yaml = "template: |\n";
  std::string text;
  for (int i = 0; i < 50'000; ++i) {
    yaml += "  line " + std::to_string(i) + "\n";
    text += (i ? "\n" : "") + std::string("line ") + std::to_string(i);
  }
  SourceText t("w.yaml (template)", text,
               Embedding{std::make_shared<SourceText>("w.yaml", yaml), 1, 11, "template", 0});
  auto at = t.place_in_file(50'000, 6);
  REQUIRE(at);
  CHECK(at->str() == "w.yaml:50001:8");
}
