// Integers in templates: exact where they fit in 64 bits, a template.integer_overflow error where Jinja2 would
// need a bigger one, never a wrapped number or a trap.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/template/template.h"

using namespace engine;
using engine::tmpl::Template;

namespace {

std::string render_integers(const std::string& src, const Value& vars = Value::object()) {
  return Template::compile(src, "t.j2").render(vars);
}

std::string overflow_error(const std::string& src, const Value& vars = Value::object(), std::string* kind = nullptr) {
  try {
    render_integers(src, vars);
  } catch (const Error& e) {
    if (kind) *kind = e.kind_name();
    return e.what();
  }
  return "no error";
}

const char* const kTooBig = " does not fit in 64 bits (Jinja2 computes it exactly; the engine's integers are 64-bit)";

}  // namespace

TEST_CASE("integers: results that fit are exact, as Jinja2's", "[template][integer]") {
  CHECK(render_integers("{{ 2 ** 62 }} {{ 9223372036854775806 + 1 }}") == "4611686018427387904 9223372036854775807");
  CHECK(render_integers("{{ -7 // 2 }} {{ -7 % 2 }} {{ 7 // -2 }} {{ 7 % -2 }}") == "-4 1 -4 -1");
  CHECK(render_integers("{{ (-1) ** 1000000000000 }} {{ 1 ** 999999999999 }} {{ 0 ** 0 }} {{ 0 ** 5 }}") == "1 1 1 0");
  CHECK(render_integers("{{ 2 ** -1 }}") == "0.5");
  CHECK(render_integers("{{ x % -1 }}", {{"x", LLONG_MIN}}) == "0");
  CHECK(render_integers("{{ x - 1 + 1 }}", {{"x", LLONG_MIN + 1}}) == "-9223372036854775807");
}

TEST_CASE("integers: overflow of + - * ** // and unary minus is an error naming the operation", "[template][integer]") {
  std::string kind;
  CHECK(overflow_error("{{ 2 ** 64 }}", {}, &kind) == std::string("t.j2:1:6: integer overflow: 2 ** 64") + kTooBig);
  CHECK(kind == "template.integer_overflow");
  CHECK(overflow_error("{{ x + 1 }}", {{"x", LLONG_MAX}}) == std::string("t.j2:1:6: integer overflow: 9223372036854775807 + 1") + kTooBig);
  CHECK(overflow_error("{{ x - 1 }}", {{"x", LLONG_MIN}}) == std::string("t.j2:1:6: integer overflow: -9223372036854775808 - 1") + kTooBig);
  CHECK(overflow_error("{{ x * 3 }}", {{"x", 1LL << 62}}) == std::string("t.j2:1:6: integer overflow: 4611686018427387904 * 3") + kTooBig);
  CHECK(overflow_error("{{ x // -1 }}", {{"x", LLONG_MIN}}) ==
        std::string("t.j2:1:6: integer overflow: -9223372036854775808 // (-1)") + kTooBig);
  CHECK(overflow_error("{{ -x }}", {{"x", LLONG_MIN}}, &kind) == std::string("t.j2:1:4: integer overflow: -(-9223372036854775808)") + kTooBig);
  CHECK(overflow_error("{{ 3 ** 1000000000000000 }}") == std::string("t.j2:1:6: integer overflow: 3 ** 1000000000000000") + kTooBig);
  CHECK(overflow_error("{{ 1 // 0 }}", {}, &kind) == "t.j2:1:6: integer division or modulo by zero");
  CHECK(kind == "template.render");
}

TEST_CASE("integers: unsigned JSON values past 2^63-1 print exactly but cannot be computed with", "[template][integer]") {
  Value vars = Value::parse(R"({"big": 18446744073709551615, "list": [1, 2, 3]})");
  CHECK(render_integers("{{ big }}", vars) == "18446744073709551615");
  CHECK(overflow_error("{{ big + 0 }}", vars) == std::string("t.j2:1:8: integer overflow: 18446744073709551615") + kTooBig);
  CHECK(overflow_error("{{ -big }}", vars).find("integer overflow: 18446744073709551615") != std::string::npos);
  CHECK(render_integers("{{ list[big] is defined }}", vars) == "False");  // out of range, not index -1
  CHECK(overflow_error("{{ range(big) }}", vars).find("integer overflow") != std::string::npos);
}

TEST_CASE("integers: filters that make integers are checked too", "[template][integer]") {
  std::string kind;
  CHECK(render_integers("{{ 3.9 | int }} {{ -3.9 | int }} {{ '42' | int }} {{ '4.5' | int }} {{ 'x' | int }}") == "3 -3 42 4 0");
  CHECK(overflow_error("{{ 1e300 | int }}", {}, &kind) == std::string("t.j2:1:10: int: integer overflow: 1e+300") + kTooBig);
  CHECK(kind == "template.integer_overflow");
  CHECK(overflow_error("{{ '99999999999999999999' | int }}").find("integer overflow: '99999999999999999999'") !=
        std::string::npos);
  CHECK(overflow_error("{{ '1e300' | int }}").find("integer overflow: 1e+300") != std::string::npos);
  CHECK(overflow_error("{{ x | abs }}", {{"x", LLONG_MIN}}).find("integer overflow") != std::string::npos);
  CHECK(overflow_error("{{ [x, x] | sum }}", {{"x", LLONG_MAX}}).find("integer overflow: 9223372036854775807 + "
                                                                 "9223372036854775807") != std::string::npos);
  CHECK(overflow_error("{{ 'x' | center(1e300) }}").find("integer overflow") != std::string::npos);
  CHECK(overflow_error("{{ 'x' | int(base=99) }}") == "t.j2:1:8: int: int() base must be >= 2 and <= 36, or 0");
}

TEST_CASE("integers: ranges and slices with extreme bounds neither overflow nor hang", "[template][integer]") {
  Value vars{{"min", LLONG_MIN}, {"max", LLONG_MAX}, {"l", {1, 2, 3, 4}}};
  CHECK(render_integers("{{ range(max - 2, max) | list }}", vars) == "[9223372036854775805, 9223372036854775806]");
  CHECK(render_integers("{{ range(min + 2, min, -1) | list }}", vars) == "[-9223372036854775806, -9223372036854775807]");
  CHECK(render_integers("{{ range(0, max, max) | list }} {{ range(0, min, min) | list }}", vars) == "[0] [0]");
  CHECK(overflow_error("{{ range(min, max) | length }}", vars) == "t.j2:1:9: range() of more than 1000000 items");
  CHECK(overflow_error("{{ range(max) | length }}", vars) == "t.j2:1:9: range() of more than 1000000 items");
  CHECK(render_integers("{{ l[1::max] }} {{ l[::min] }} {{ l[min:max] }} {{ l[max:min:-1] }}", vars) ==
        "[2] [4] [1, 2, 3, 4] [4, 3, 2, 1]");
}

TEST_CASE("integers: literals past 64 bits are a compile error, floats past a double are inf", "[template][integer]") {
  // found by the template fuzz target: 1e320 made std::stod throw out of the compiler
  CHECK(render_integers("{{ 1e400 }} {{ -1e400 }} {{ 1e-400 }}") == "inf -inf 0.0");
  std::string kind;
  try {
    Template::compile("{{ 1 + 99999999999999999999 }}", "t.j2");
    FAIL("compiled");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::TemplateIntegerOverflow);
    CHECK(std::string(e.what()) == std::string("t.j2:1:8: integer literal 99999999999999999999") + kTooBig);
  }
  CHECK_THROWS_WITH(Template::compile("{{ l.99999999999999999999 }}", "t.j2"), Catch::Contains("integer literal"));
  CHECK_THROWS_WITH(render_integers("{{ '{99999999999999999999}'.format(1) }}"),
                    "t.j2:1:35: format: no argument for field '{99999999999999999999}'");
  CHECK_THROWS_WITH(render_integers("{{ [[1, 2]] | map(attribute='0.99999999999999999999') | list }}"),
                    "t.j2:1:13: map: map: an item has no attribute '0.99999999999999999999'");
}
