// Rendering semantics. Expected outputs are what Jinja2 prints for the same template and context.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/template/template.h"

using engine::Error;
using engine::Value;
using engine::tmpl::Template;
using engine::tmpl::TemplateOptions;

namespace {

std::string render(const std::string& src, const Value& vars = Value::object(), TemplateOptions o = {}) {
  return Template::compile(src, "t.j2", o).render(vars);
}

std::string error_of(const std::string& src, const Value& vars = Value::object(), TemplateOptions o = {}) {
  try {
    render(src, vars, o);
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

const Value kTools = Value::parse(R"({"tools": [{"name": "calc", "description": "math"},
                                                {"name": "search", "description": "web"}]})");

}  // namespace

TEST_CASE("output prints values as Python's str() does", "[template]") {
  Value v = Value::parse(R"({"t": true, "f": false, "n": null, "i": 3, "x": 1.0, "s": "a'b",
                              "l": [1, "a", null, true, 2.5], "d": {"k": "v", "n": 1}})");
  CHECK(render("{{ t }} {{ f }} {{ n }} {{ i }} {{ x }}", v) == "True False None 3 1.0");
  CHECK(render("{{ l }}", v) == "[1, 'a', None, True, 2.5]");
  CHECK(render("{{ d }}", v) == "{'k': 'v', 'n': 1}");
  CHECK(render("{{ [s] }}", v) == "[\"a'b\"]");
  CHECK(render("{{ 1e-5 }} {{ 1e16 }} {{ 0.1 + 0.2 }} {{ 100.0 }}") == "1e-05 1e+16 0.30000000000000004 100.0");
}

TEST_CASE("arithmetic follows Python: / is true division, // and % floor", "[template]") {
  CHECK(render("{{ 7 / 2 }} {{ 4 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }}") ==
        "3.5 2.0 3 -4 2 -2");
  CHECK(render("{{ 2 ** 10 }} {{ 2 ** -1 }} {{ 1 + 2.0 }} {{ 'ab' * 3 }} {{ [1] + [2] }}") ==
        "1024 0.5 3.0 ababab [1, 2]");
  CHECK(render("{{ 'a' ~ 1 ~ none }}") == "a1None");
  CHECK(error_of("{{ 1 / 0 }}") == "t.j2:1:6: division by zero\n  {{ 1 / 0 }}\n       ^");
}

TEST_CASE("attribute, subscript and slice access", "[template]") {
  Value v = Value::parse(R"({"a": {"b": [10, 20, 30]}, "s": "hello"})");
  CHECK(render("{{ a.b[0] }} {{ a['b'][-1] }} {{ a.b.1 }}", v) == "10 30 20");
  CHECK(render("{{ a.b[1:] }} {{ a.b[::-1] }} {{ s[1:3] }} {{ s[::-1] }}", v) == "[20, 30] [30, 20, 10] el olleh");
}

TEST_CASE("comparisons, logic and membership", "[template]") {
  CHECK(render("{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }} {{ 1 == 1.0 }} {{ 'a' in 'cat' }} {{ 2 not in [1, 3] }}") ==
        "True False True True True");
  CHECK(render("{{ 0 or 'x' }} {{ '' and 1 }}|{{ none or [] }} {{ not 0 }}") == "x |[] True");
  CHECK(render("{{ 'y' if 1 > 2 else 'n' }}") == "n");
}

TEST_CASE("if, elif and else", "[template]") {
  const char* t = "{% if n > 1 %}many{% elif n == 1 %}one{% else %}none{% endif %}";
  CHECK(render(t, {{"n", 5}}) == "many");
  CHECK(render(t, {{"n", 1}}) == "one");
  CHECK(render(t, {{"n", 0}}) == "none");
  CHECK(render("{% if [] %}a{% endif %}{% if {} %}b{% endif %}{% if '' %}c{% endif %}{% if [0] %}d{% endif %}") == "d");
}

TEST_CASE("for loops expose loop.* as Jinja2", "[template]") {
  CHECK(render("{% for t in tools %}{{ loop.index }}/{{ loop.length }}:{{ t.name }}{% if not loop.last %}, "
               "{% endif %}{% endfor %}",
               kTools) == "1/2:calc, 2/2:search");
  CHECK(render("{% for x in [1,2,3] %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{% endfor %}") ==
        "03True12False21False");
  CHECK(render("{% for x in 'abc' %}{{ loop.cycle('o', 'e') }}{{ x }}{% endfor %}") == "oaeboc");
  CHECK(render("{% for x in [1,2,3] %}{% if loop.previtem is defined %}{{ loop.previtem }}>{% endif %}{{ x }} "
               "{% endfor %}") == "1 1>2 2>3 ");
  CHECK(render("{% for x in [] %}x{% else %}empty{% endfor %}") == "empty");
  CHECK(render("{% for x in range(10) if x is even %}{{ x }}{% endfor %}") == "02468");
  CHECK(render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}") == "a=1;b=2;");
  CHECK(render("{% for k in {'z': 1, 'a': 2} %}{{ k }}{% endfor %}") == "za");
}

TEST_CASE("set inside a loop does not leak out of it", "[template]") {
  CHECK(render("{% set a = 5 %}{% for i in range(3) %}{% set a = i %}{{ a }}{% endfor %}{{ a }}") == "0125");
  CHECK(render("{% set x, y = [1, 2] %}{{ y }}{{ x }}") == "21");
  CHECK(render("{% set block %}hi {{ 1 + 1 }}{% endset %}[{{ block }}]") == "[hi 2]");
}

TEST_CASE("whitespace control and Jinja2's default trailing newline", "[template]") {
  CHECK(render("a  {%- if true -%}  b  {%- endif -%}  c") == "abc");
  CHECK(render("a {{- 1 -}} b") == "a1b");
  CHECK(render("{# a comment #}x{#- another -#} y") == "xy");
  CHECK(render("line\n") == "line");
  CHECK(render("line\n\n") == "line\n");
  TemplateOptions keep;
  keep.keep_trailing_newline = true;
  CHECK(render("line\n", Value::object(), keep) == "line\n");
}

TEST_CASE("trim_blocks and lstrip_blocks options", "[template]") {
  TemplateOptions o;
  o.trim_blocks = true;
  o.lstrip_blocks = true;
  CHECK(render("<ul>\n  {% for x in [1, 2] %}\n  <li>{{ x }}</li>\n  {% endfor %}\n</ul>", Value::object(), o) ==
        "<ul>\n  <li>1</li>\n  <li>2</li>\n</ul>");
  CHECK(render("<ul>\n  {% for x in [1, 2] %}\n  <li>{{ x }}</li>\n  {% endfor %}\n</ul>") ==
        "<ul>\n  \n  <li>1</li>\n  \n  <li>2</li>\n  \n</ul>");
}

TEST_CASE("filters used by prompts", "[template]") {
  CHECK(render("{{ tools | map(attribute='name') | join(', ') }}", kTools) == "calc, search");
  CHECK(render("{{ tools | length }} {{ 'héllo' | length }} {{ 'Hi' | upper }} {{ 'Hi' | lower }}", kTools) ==
        "2 5 HI hi");
  // A sequence that is not UTF-8 (an overlong '/', a surrogate) is kept as its bytes, never decoded and case-mapped.
  CHECK(render("{{ s | upper }}", Value{{"s", "a\xc0\xaf" "b\xed\xa0\x80"}}) == "A\xc0\xaf" "B\xed\xa0\x80");
  CHECK(render("[{{ '  x  ' | trim }}] {{ 'a-b-c' | replace('-', '+') }} {{ 'a-b-c' | replace('-', '', 1) }}") ==
        "[x] a+b+c ab-c");
  CHECK(render("{{ missing | default('d') }} {{ '' | default('e', true) }} {{ '' | default('e') }}|") == "d e |");
  CHECK(render("{{ {'b': 1, 'a': [1, 'x<']} | tojson }}") == R"({"a": [1, "x\u003c"], "b": 1})");
  CHECK(render("{{ '日本' | tojson }}") == R"("\u65e5\u672c")");
  CHECK(render("{{ [1, 2] | tojson(indent=2) }}") == "[\n  1,\n  2\n]");
  CHECK(render("{{ 'a\nb\n\nc' | indent(2) }}") == "a\n  b\n\n  c");
  CHECK(render("{{ 'a\nb' | indent(2, true) }}") == "  a\n  b");
  CHECK(render("{{ [3, 1, 2] | sort | list }} {{ [1, 2, 2] | unique | list }} {{ [1, 2] | sum }} {{ [4, 9] | max }}") ==
        "[1, 2, 3] [1, 2] 3 9");
  CHECK(render("{{ tools | selectattr('name', 'equalto', 'calc') | map(attribute='description') | first }}", kTools) ==
        "math");
  CHECK(render("{{ 'hello world' | title }} {{ 'hELLO' | capitalize }} {{ 3.14159 | round(2) }} {{ '42' | int + 1 }}") ==
        "Hello World Hello 3.14 43");
  CHECK(render("{{ ['a', 'b'] | map('upper') | join }}") == "AB");
}

TEST_CASE("tests with is", "[template]") {
  CHECK(render("{{ x is defined }} {{ y is undefined }} {{ none is none }} {{ 4 is even }} {{ 9 is divisibleby 3 }}",
               {{"x", 1}}) == "True True True True True");
  CHECK(render("{{ 'a' is string }} {{ 1 is number }} {{ [1] is sequence }} {{ {} is mapping }} {{ 1 is not string }}") ==
        "True True True True True");
}

TEST_CASE("string and dict methods", "[template]") {
  CHECK(render("{{ ' a b '.strip() }}|{{ 'a,b'.split(',') }}|{{ 'Ab'.startswith('A') }}|{{ 'x{}y'.format(1) }}") ==
        "a b|['a', 'b']|True|x1y");
  CHECK(render("{{ d.get('k') }} {{ d.get('z', 'no') }} {{ d.keys() | list }} {{ d.values() | list }}",
               {{"d", {{"k", "v"}}}}) == "v no ['k'] ['v']");
}

TEST_CASE("strict undefined names the variable, template, line and column", "[template]") {
  CHECK(error_of("Hello\n  {{ tool_name }}") ==
        "t.j2:2:6: undefined variable 'tool_name'\n    {{ tool_name }}\n       ^");
  CHECK(error_of("{% for t in tools %}{{ t.nme }}{% endfor %}", kTools) ==
        "t.j2:1:25: 't' has no attribute nme\n  {% for t in tools %}{{ t.nme }}{% endfor %}\n                          ^");
  CHECK(error_of("{% if flag %}x{% endif %}") == "t.j2:1:7: undefined variable 'flag'\n"
        "  {% if flag %}x{% endif %}\n"
        "        ^");
  // Attribute access on an undefined fails in every mode, as in Jinja2.
  TemplateOptions lenient;
  lenient.strict_undefined = false;
  CHECK(error_of("{{ nothing.attr }}", Value::object(), lenient) == "t.j2:1:4: undefined variable 'nothing'\n"
        "  {{ nothing.attr }}\n"
        "     ^");
}

TEST_CASE("lenient undefined renders empty, like Jinja2's default", "[template]") {
  TemplateOptions lenient;
  lenient.strict_undefined = false;
  CHECK(render("[{{ x }}]{% for i in x %}no{% endfor %}{% if x %}no{% endif %}{{ x | length }}", Value::object(),
               lenient) == "[]0");
}

TEST_CASE("an inline if without else is a lenient undefined when false, as in Jinja2", "[template]") {
  CHECK(render("{{ 'x' if true }}{{ 'y' if false else '' }}[{{ 'z' if false }}]") == "x[]");
  CHECK(error_of("{{ ('x' if false).upper() }}") ==
        "t.j2:1:5: the inline if-expression is false and has no else branch\n"
        "  {{ ('x' if false).upper() }}\n"
        "      ^");
  TemplateOptions lenient;
  lenient.strict_undefined = false;
  CHECK(render("[{{ 'x' if false }}]", Value::object(), lenient) == "[]");
}

TEST_CASE("syntax errors say what was expected and where", "[template]") {
  CHECK(error_of("{% for %}") == "t.j2:1:8: expected a name after 'for', got '%}'\n  {% for %}\n         ^");
  CHECK(error_of("a\n{% if x %}unclosed").rfind(
            "t.j2:2:19: unclosed 'if' block opened at line 2:1: expected '{% endif %}' before the end", 0) == 0);
  CHECK(error_of("{% for x in y %}{% endif %}") ==
        "t.j2:1:20: unexpected 'endif': no open block to close or continue here\n"
        "  {% for x in y %}{% endif %}\n"
        "                     ^");
  CHECK(error_of("{{ x ") == "t.j2:1:1: unclosed tag: expected '}}' before the end of the template\n  {{ x \n  ^");
  CHECK(error_of("{{ 'abc }}") == "t.j2:1:4: unterminated string literal\n  {{ 'abc }}\n     ^");
  CHECK(error_of("{% generation %}") == "t.j2:1:4: unknown tag 'generation'\n  {% generation %}\n     ^");
  CHECK(error_of("{{ x | uper }}") == "t.j2:1:6: unknown filter 'uper' (did you mean 'upper'?)\n"
        "  {{ x | uper }}\n"
        "       ^");
  CHECK(error_of("{{ x is evn }}") == "t.j2:1:6: unknown test 'evn' (did you mean 'even'?)\n"
        "  {{ x is evn }}\n"
        "       ^");
  CHECK(error_of("{# never closed") == "t.j2:1:1: unclosed comment: expected '#}'\n  {# never closed\n  ^");
  CHECK(error_of("{% endfor %}") == "t.j2:1:4: unexpected 'endfor': no open block to close or continue here\n"
        "  {% endfor %}\n"
        "     ^");
}

TEST_CASE("errors point at the right column on non-ASCII lines", "[template]") {
  CHECK(error_of("観察: {{ missing }}") == "t.j2:1:8: undefined variable 'missing'\n  観察: {{ missing }}\n         ^");
}

TEST_CASE("limits: nesting depth and output size", "[template]") {
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  CHECK(error_of("{{ " + deep + " }}").find("nested deeper than 200 levels") != std::string::npos);
  CHECK(error_of("{{ ((1 }}") == "t.j2:1:8: unexpected '}', expected ')'\n  {{ ((1 }}\n         ^");
  CHECK(error_of("{{ (1").find("(a bracket opened in the tag is never closed)") != std::string::npos);
  std::string deep_ifs;
  for (int i = 0; i < 300; ++i) deep_ifs += "{% if true %}";
  CHECK(error_of(deep_ifs).find("nested deeper than 200 levels") != std::string::npos);
  TemplateOptions small;
  small.max_output_bytes = 100;
  CHECK(error_of("{% for i in range(1000) %}xxxxxxxx{% endfor %}", Value::object(), small)
            .find("rendered output exceeds 100 bytes") != std::string::npos);
  CHECK(error_of("{{ 'x' * 100000000 }}").find("repetition exceeds the output limit") != std::string::npos);
  CHECK(error_of("{{ range(100000000) | length }}").find("range() of more than 1000000 items") != std::string::npos);
}

TEST_CASE("a compiled template renders many times and reports its free names", "[template]") {
  auto t = Template::compile("{% set z = 1 %}{{ q }}{% for s in steps %}{{ s }}{{ loop.index }}{% endfor %}{{ z }}",
                             "t.j2");
  CHECK(t.render(Value{{"q", "a"}, {"steps", {1, 2}}}) == "a11221");
  CHECK(t.render(Value{{"q", "b"}, {"steps", Value::array()}}) == "b1");
  CHECK(t.free_names() == std::vector<std::string>{"q", "steps"});
}

TEST_CASE("fromjson reads JSON text back into values, with the engine's depth bound", "[template]") {
  Value v{{"t", R"({"answer": 4, "tags": ["a", "b"]})"}};
  CHECK(render("{% set o = t | fromjson %}{{ o.answer }} {{ o.tags | join(',') }} {{ o | tojson }}", v) ==
        "4 a,b {\"answer\": 4, \"tags\": [\"a\", \"b\"]}");
  CHECK(error_of("{{ 'nope' | fromjson }}") ==
        "t.j2:1:11: fromjson: the text is not JSON: parse error at line 1, column 2: syntax error while parsing value - invalid literal\n"
        "  {{ 'nope' | fromjson }}\n"
        "            ^");
  CHECK(error_of("{{ 3 | fromjson }}") == "t.j2:1:6: fromjson: expects a string, got int\n"
        "  {{ 3 | fromjson }}\n"
        "       ^");
  std::string deep = std::string(200, '[') + std::string(200, ']');
  CHECK(error_of("{{ d | fromjson }}", {{"d", deep}}).find("nested deeper than 128 levels") != std::string::npos);
}

TEST_CASE("free paths: each read of a free name with the longest attribute path read of it, at its place",
          "[template]") {
  auto t = Template::compile(
      "{{ steps.draft.output.text }} {{ steps['critique'].output }}\n{% for s in steps.list.output %}{{ s.x }}"
      "{{ inputs.topic[i] }}{% endfor %}{{ plain | upper }}{{ steps.a.output.upper() }}",
      "t.j2");
  std::vector<std::string> seen;
  for (const auto& p : t.free_paths()) seen.push_back(engine::join(p.parts, ".") + "@" + std::to_string(p.line) + ":" +
                                                       std::to_string(p.col));
  CHECK(seen == std::vector<std::string>{"steps.draft.output.text@1:4", "steps.critique.output@1:34",
                                         "steps.list.output@2:13", "inputs.topic@2:45", "i@2:58", "plain@2:78",
                                         "steps.a.output.upper@2:97"});
  CHECK(t.free_names() == std::vector<std::string>{"steps", "inputs", "i", "plain"});
}

TEST_CASE("an expression alone evaluates to its value, as if tests it", "[template]") {
  Value steps = Value::parse(R"({"classify": {"output": {"category": "billing", "score": 0.9}}})");
  auto vars = Value{{"steps", steps}};
  CHECK(Template::compile_expression("steps.classify.output.category == 'billing'", "when").evaluate(vars) == true);
  CHECK(Template::compile_expression("steps.classify.output.score > 0.95", "when").evaluate(vars) == false);
  CHECK(Template::compile_expression("steps.classify.output", "e").evaluate(vars) == steps["classify"]["output"]);
  CHECK(Template::compile_expression("[1, 2] | length", "e").evaluate(Value::object()) == 2);
  CHECK(Template::compile_expression("steps.classify.output.category", "e").free_paths()[0].parts ==
        std::vector<std::string>{"steps", "classify", "output", "category"});
  CHECK_THROWS_WITH(Template::compile_expression("x }}{{ y", "when"),
                    Catch::Contains("expected one expression, got a template"));
  CHECK_THROWS_WITH(Template::compile_expression("missing == 1", "when").evaluate(Value::object()),
                    Catch::Contains("undefined variable 'missing'"));
  CHECK_THROWS_WITH(Template::compile_expression("a ==", "when"), Catch::Contains("when:1:"));
}

TEST_CASE("names read and filters used inside with blocks and filtered set blocks are checked at compile",
          "[template]") {
  // Names the workflow must declare are found inside {% with %}, and its own names are not among them.
  auto t = Template::compile("{% with a = q, b = 2 %}{{ a }}{{ b }}{{ r }}{% endwith %}", "t.j2");
  CHECK(t.free_names() == std::vector<std::string>{"q", "r"});
  CHECK(t.render(Value{{"q", "x"}, {"r", "y"}}) == "x2y");
  // An unknown filter there is a compile error, as anywhere else, not a failure when the prompt is first rendered.
  CHECK(error_of("{% with a = 1 %}{{ a | uper }}{% endwith %}")
            .rfind("t.j2:1:22: unknown filter 'uper' (did you mean 'upper'?)", 0) == 0);
  CHECK(error_of("{% set x | uper %}a{% endset %}") == "t.j2:1:1: unknown filter 'uper' (did you mean 'upper'?)\n"
        "  {% set x | uper %}a{% endset %}\n"
        "  ^");
  auto filtered = Template::compile("{% set x | replace(old, 'b') %}a{% endset %}{{ x }}", "t.j2");
  CHECK(filtered.free_names() == std::vector<std::string>{"old"});
}

// Gemma-4, gpt-oss and Nemotron set a name again after making a namespace: the namespace must stay one.
TEST_CASE("a namespace stays one when another name is set again, and a second name for it aliases it", "[template]") {
  CHECK(render("{% set ns = namespace(a=1) %}{% set x = 1 %}{% set x = 2 %}{% set ns.a = 3 %}{{ ns.a }} {{ x }}") ==
        "3 2");
  CHECK(render("{% set x = 1 %}{% set ns = namespace() %}{% set x = 2 %}{% set ns.a = 5 %}{{ ns.a }}") == "5");
  CHECK(render("{% set ns = namespace(a=1) %}{% set x = ns %}{% set x.a = 5 %}{{ ns.a }} {{ x.a }}") == "5 5");
  CHECK(render("{% set ns = namespace(n=0) %}{% with y = ns %}{% set y.n = 7 %}{% endwith %}{{ ns.n }}") == "7");
  CHECK(render("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}") ==
        "6");
  CHECK(error_of("{% set x = 1 %}{% set x.a = 2 %}") ==
        "t.j2:1:16: cannot assign attribute on non-namespace object 'x'\n  {% set x = 1 %}{% set x.a = 2 %}\n"
        "                 ^");
}

// transformers' chat templates ask before calling them.
TEST_CASE("the global functions are defined: strftime_now, raise_exception, range, dict, namespace", "[template]") {
  CHECK(render("{{ strftime_now is defined }} {{ raise_exception is defined }} {{ range is defined }} "
               "{{ dict is defined }} {{ namespace is undefined }} {{ nothing is defined }}") ==
        "True True True True False False");
  CHECK(render("{% set range = none %}{{ range is defined }}") == "True");  // shadowed: its own value
}

TEST_CASE("select, reject, their attr forms and map over none, 0 or false give an empty sequence", "[template]") {
  Value v{{"n", nullptr}, {"z", 0}, {"f", false}};
  CHECK(render("{{ n | select | list }} {{ z | reject | list }} {{ f | selectattr('a') | list }} "
               "{{ n | rejectattr('a') | list }} {{ n | map('upper') | list }} {{ f | map(attribute='a') | list }}",
               v) == "[] [] [] [] [] []");
}

// From the audit of Jinja2's builtins against Python: what each gives where the engine once differed.
TEST_CASE("builtins as Jinja2: dict(d, k=v) keeps d, list.index's bounds, int's bases and prefixes, first of nothing",
          "[template]") {
  CHECK(render("{{ dict({'a': 1}, c=3) }}") == "{'a': 1, 'c': 3}");
  CHECK(render("{{ [1, 2, 3, 2].index(2, 2) }} {{ [1, 2, 3, 2].index(2, -3, 3) }}") == "3 1");
  CHECK(error_of("{{ [1, 2].index(1, 1) }}").find("1 is not in list") != std::string::npos);
  CHECK(render("{{ '0b101' | int(0, 0) }} {{ '0o17' | int(base=0) }} {{ '0x_1f' | int(base=16) }} "
               "{{ '-0b11' | int(base=0) }} {{ '1_000' | int }} {{ '007' | int(base=0) }} {{ '42.7' | int }} "
               "{{ 'zz' | int(9) }}") == "5 15 31 -3 1000 7 42 9");
  CHECK(render("{{ ([] | first) is defined }} {{ ([] | last) is defined }} {{ [] | first | default('none') }} "
               "{{ [5, 6] | first }} {{ [5, 6] | last }}") == "False False none 5 6");
}

// transformers renders chat templates with Jinja2's lenient Undefined: empty when printed, but an operand of + or
// json.dumps fails; a name set from it stays undefined.
TEST_CASE("a chat template's undefined is empty when printed but not an operand, as Jinja2's Undefined",
          "[template][chat]") {
  auto rendered = [](const std::string& source) {
    try {
      return Template::compile_chat(source, "chat.j2").render_chat(Value::array(), false);
    } catch (const Error& e) {
      return "ERROR " + std::string(e.kind_name()) + ": " + e.message();
    }
  };
  CHECK(rendered("[{{ nope }}]{{ nope | length }}{% set x = nope %}{{ x is defined }}") == "[]0False");
  CHECK(rendered("{{ 'a' + nope }}") == "ERROR template.undefined: undefined variable 'nope'");
  CHECK(rendered("{{ nope | tojson }}") == "ERROR template.undefined: tojson: undefined variable 'nope'");
  CHECK(rendered("{% set x = nope %}{{ x * 2 }}") ==
        "ERROR template.undefined: 'x' was set from an undefined value: undefined variable 'nope'");
}

// A dict a template makes may key by integer, as Python's; what leaves the template is JSON, keyed by text.
TEST_CASE("a dict keyed by integers leaves an expression with text keys, as json.dumps writes them", "[template]") {
  Value got = Template::compile_expression("{1: 'a', true: [{2: 3}], none: 0, 'k': 1.5}", "e").evaluate(Value::object());
  CHECK(got == Value{{"1", "a"}, {"true", Value::array({Value{{"2", 3}}})}, {"null", 0}, {"k", 1.5}});
  CHECK(Template::compile_expression("{10: 'b', 2: 'c'}[10]", "e").evaluate(Value::object()) == "b");
  // Keys from inputs are text: an integer finds nothing there, as in Python.
  CHECK(Template::compile_expression("d[1] is defined", "e").evaluate(Value{{"d", {{"1", "x"}}}}) == false);
}
