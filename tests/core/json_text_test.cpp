// The engine's JSON writer: byte for byte what nlohmann's dump() writes for valid UTF-8, and always valid UTF-8
// out, whatever bytes come in.
#include <catch2/catch.hpp>

#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"

using namespace engine;

namespace {
std::string nlohmann_dump(const Value& v) { return v.dump(-1, ' ', false, Value::error_handler_t::replace); }
}  // namespace

TEST_CASE("json text matches nlohmann's dump for valid text, every control character and nesting", "[core][json]") {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls.push_back(static_cast<char>(c));
  Value v{{"prompt", "Question: \"2+2\"?\\n\nThought:\t\x7F"},
          {"controls", controls},
          {"unicode", "café 日本 😀 \xE2\x80\xA8"},
          {"numbers", {0, -1, 2.5, 0.0, 1e300, 18446744073709551615ULL}},
          {"flags", {true, false, nullptr}},
          {"nested", {{"empty_object", Value::object()}, {"empty_array", Value::array()}, {"key \"quoted\"", "v"}}}};
  CHECK(to_json_text(v) == nlohmann_dump(v));
  CHECK(Value::parse(to_json_text(v)) == v);
}

TEST_CASE("json text replaces bytes that start no UTF-8 character, and stays parseable", "[core][json]") {
  auto text = [](const std::string& s) { return to_json_text(Value(s)); };
  CHECK(text("a\xFF" "b") == "\"a\xEF\xBF\xBD" "b\"");
  CHECK(text("\xE6\x97") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");          // a character cut short
  CHECK(text("\xC0\xAF") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");          // an overlong '/'
  CHECK(text("\xED\xA0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // a surrogate
  CHECK(text("\xF4\x90\x80\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // past U+10FFFF
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string out = text(all + all);
  CHECK(utf8::find_invalid(out) == std::string::npos);
  CHECK_NOTHROW(Value::parse(out));
}
