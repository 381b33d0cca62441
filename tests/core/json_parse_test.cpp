// JSON from outside is bounded in depth: a value nested 200,000 deep is refused where it comes in, cheaply,
// instead of crashing a later copy, print or conversion.
#include <catch2/catch.hpp>

#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::string nested(int depth, char open, char close, const std::string& inner = "1") {
  return std::string(depth, open) + inner + std::string(depth, close);
}

}  // namespace

TEST_CASE("json: ordinary documents parse as nlohmann parses them", "[core][json]") {
  CHECK(parse_json(R"({"a": [1, 2.5, "x", null, true], "b": {"c": {}}})") ==
        Value::parse(R"({"a": [1, 2.5, "x", null, true], "b": {"c": {}}})"));
  CHECK(parse_json("18446744073709551615").is_number_unsigned());
  CHECK(parse_json("\"\\u00e9\"") == "é");
}

TEST_CASE("json: nesting up to the bound parses, one level past it is refused", "[core][json]") {
  CHECK(json_depth(parse_json(nested(limits::kJsonDepth, '[', ']'))) == limits::kJsonDepth);
  JsonError e;
  CHECK(parse_json(nested(limits::kJsonDepth + 1, '[', ']'), &e).is_discarded());
  CHECK(e.too_deep);
  CHECK(e.message == "nested deeper than 128 levels");
  std::string objects;
  for (int i = 0; i <= limits::kJsonDepth; ++i) objects += "{\"k\":";
  objects += "1" + std::string(limits::kJsonDepth + 1, '}');
  CHECK(parse_json(objects, &e).is_discarded());
  CHECK(e.too_deep);
  CHECK(parse_json(nested(5, '[', ']'), nullptr, 4).is_discarded());
}

TEST_CASE("json: 200,000 levels deep, arrays or objects, unclosed or closed, end as an error", "[core][json]") {
  for (const std::string& text : {nested(200'000, '[', ']'), std::string(200'000, '['),
                                  [] {
                                    std::string s;
                                    for (int i = 0; i < 200'000; ++i) s += "{\"a\":";
                                    return s;
                                  }()}) {
    JsonError e;
    CHECK(parse_json(text, &e).is_discarded());
    CHECK(e.too_deep);
  }
}

TEST_CASE("json: a syntax error names its place, never the text", "[core][json]") {
  JsonError e;
  CHECK(parse_json("{\"key\": sk-secret-value}", &e).is_discarded());
  CHECK_FALSE(e.too_deep);
  CHECK(e.message == "parse error at line 1, column 9: syntax error while parsing value - invalid literal");
  CHECK(parse_json("", &e).is_discarded());
  CHECK(e.message.find("unexpected end of input") != std::string::npos);
  CHECK(parse_json("[1] [2]", &e).is_discarded());
  CHECK(parse_json("1e400", &e).is_discarded());
  CHECK(e.message == "number overflow parsing");
}

TEST_CASE("json: depth is counted without recursion", "[core][json]") {
  CHECK(json_depth(Value(3)) == 0);
  CHECK(json_depth(Value::array()) == 1);
  CHECK(json_depth(Value{{"a", {{"b", Value::array({1})}}}}) == 3);
}

TEST_CASE("json: a file is parsed as its text is, a buffer at a time, with read_file's checks", "[core][json]") {
  test::TempDir dir;
  // strings longer than one read buffer, escapes split across buffers, and a document deep enough to be refused
  std::string long_text(200'000, 'x');
  std::string doc = "{\"a\": \"" + long_text + "\\u00e9\", \"b\": [1, 2.5, null, true, {\"c\": \"\\n\"}]}";
  auto path = dir.write("doc.json", doc);
  CHECK(parse_json_file(path, limits::kFileBytes, Pipes::Refused) == parse_json(doc));
  CHECK(parse_json_file(path, limits::kFileBytes, Pipes::Refused)["a"].get_ref<const std::string&>().size() == 200'002);
  JsonError e;
  CHECK(parse_json_file(dir.write("deep.json", nested(200'000, '[', ']')), limits::kFileBytes, Pipes::Refused, &e)
            .is_discarded());
  CHECK(e.too_deep);
  CHECK(parse_json_file(dir.write("bad.json", "{\"key\": sk-secret-value}"), limits::kFileBytes, Pipes::Refused, &e)
            .is_discarded());
  CHECK(e.message == "parse error at line 1, column 9: syntax error while parsing value - invalid literal");
  CHECK(parse_json_file(dir.write("empty.json", ""), limits::kFileBytes, Pipes::Refused, &e).is_discarded());
  CHECK(e.message.find("unexpected end of input") != std::string::npos);
  std::string kind;
  CHECK(test::error_of([&] { parse_json_file(path, 1000, Pipes::Refused); }, &kind) ==
        "cannot read '" + path.string() + "': it is " + std::to_string(doc.size()) + " bytes, more than the 1000 bytes a file may have");
  CHECK(kind == "io.too_large");
  CHECK(test::error_of([&] { parse_json_file(dir.path(), limits::kFileBytes, Pipes::Refused); }) ==
        "cannot read '" + dir.path().string() + "': it is a directory");
}
