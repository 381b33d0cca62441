// A render is bounded in steps, in the size of every string it builds and in the depth of every value it builds:
// loops that print nothing, strings doubled in a loop, center(1e10) and values nested in themselves all end in a
// located error, quickly.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/template/template.h"

using namespace engine;
using engine::tmpl::Template;
using engine::tmpl::TemplateOptions;

namespace {

std::string budget_error(const std::string& src, std::string* kind = nullptr, TemplateOptions options = {}) {
  try {
    Template::compile(src, "t.j2", options).render(Value::object());
  } catch (const Error& e) {
    if (kind) *kind = e.kind_name();
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("budget: loops and recursions that print nothing stop at the step budget", "[template][budget]") {
  std::string kind;
  CHECK(budget_error("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}", &kind) ==
        "t.j2:1:30: the render took more than 1000000 steps (a loop or a recursion that never ends?)");
  CHECK(kind == "template.render_budget");
  TemplateOptions small;
  small.max_render_steps = 100;
  // each call makes two more: 2^60 calls within the depth limit, none printing anything
  CHECK(budget_error("{% macro f(n) %}{% if n > 0 %}{% set a = f(n - 1) %}{% set b = f(n - 1) %}{% endif %}{% endmacro %}"
                 "{% set x = f(60) %}",
                 &kind, small)
            .find("took more than 100 steps (a loop or a recursion that never ends?)") != std::string::npos);
  CHECK(kind == "template.render_budget");
  CHECK(budget_error("{% for i in range(200) %}{% endfor %}", &kind, small) ==
        "t.j2:1:1: the render took more than 100 steps (a loop or a recursion that never ends?)");
  CHECK(budget_error("{% for i in range(20) %}{{ i }}{% endfor %}", nullptr, small) == "no error");
}

TEST_CASE("budget: strings built in a loop, repeated or padded stop at the output limit", "[template][budget]") {
  std::string kind;
  CHECK(budget_error("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                 &kind)
            .find("a string of more than 16777216 bytes (the output limit)") != std::string::npos);
  CHECK(kind == "template.output_too_large");
  CHECK(budget_error("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
                 &kind)
            .find("a string of more than 16777216 bytes") != std::string::npos);
  CHECK(budget_error("{{ 'ab' * 9223372036854775807 }}", &kind) == "t.j2:1:9: repetition exceeds the output limit");
  CHECK(budget_error("{{ [1, 2] * 4611686018427387904 }}") == "t.j2:1:11: repetition exceeds the output limit");
  CHECK(budget_error("{{ 'x' | center(10000000000) }}", &kind) ==
        "t.j2:1:8: center: a width of 10000000000 is not one from 0 to 1000000");
  CHECK(kind == "template.render");
  CHECK(budget_error("{{ 'x' | indent(10000000000) }}").find("a width of 10000000000 is not one from 0 to 1000000") != std::string::npos);
  CHECK(budget_error("{{ 'x' | indent(-1) }}").find("a width of -1 is not one") != std::string::npos);
  CHECK(budget_error("{{ [1] | batch(10000000000, 0) }}").find("is not one from 0 to 1000000") != std::string::npos);
  CHECK(budget_error("{{ '%999999999d' | format(1) }}") ==
        "t.j2:1:18: format: a width or precision of 100000 is past the limit of 400");
  CHECK(budget_error("{{ 'x' | replace('x', 'y' * 1000000) | replace('y', 'zzzzzzzzzzzzzzzzzzzz') }}")
            .find("the output limit") != std::string::npos);
}

TEST_CASE("budget: a value nested in itself stops at the depth bound", "[template][budget]") {
  CHECK(budget_error("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}"
                 "{{ ns.x }}")
            .find("a value nested deeper than 128 levels") != std::string::npos);
  CHECK(budget_error("{% set ns = namespace(x={}) %}{% for i in range(1000) %}{% set ns.x = {'a': ns.x} %}{% endfor %}")
            .find("a value nested deeper than 128 levels") != std::string::npos);
  CHECK(budget_error("{% set ns = namespace() %}{% for i in range(1000) %}{% set ns.me = ns %}{% endfor %}")
            .find("nested deeper than 128 levels") != std::string::npos);
  CHECK(budget_error("{% set ns = namespace(x=[1]) %}{% for i in range(1000) %}{% set ns.x = ns.x | batch(1) %}"
                 "{% endfor %}")
            .find("nested deeper than 128 levels") != std::string::npos);
}

TEST_CASE("budget: format pads and cuts by characters, without a buffer's limit", "[template][budget]") {
  CHECK(Template::compile("[{{ '%5s|%-5s|%.2s' | format('é', 'ab', '日本語') }}]", "t.j2").render(Value::object()) ==
        "[    é|ab   |日本]");
  std::string long_text(2000, 'x');
  CHECK(Template::compile("{{ '%s!' | format(t) }}", "t.j2").render({{"t", long_text}}) == long_text + "!");
  CHECK(Template::compile("{{ '%10s' | format(t) }}", "t.j2").render({{"t", long_text}}) == long_text);
}
