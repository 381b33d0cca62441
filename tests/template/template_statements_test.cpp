// Macros, includes and imports: what they do, and how each misuse ends in a located error, never a crash or a hang.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/file_scope.h"
#include "engine/template/template.h"
#include "support/test_support.h"

using engine::Error;
using engine::Value;
using engine::tmpl::Template;
using engine::tmpl::TemplateOptions;

namespace {

struct Folder {
  engine::test::TempDir dir;
  TemplateOptions options() const {
    TemplateOptions o;
    o.include_dir = dir.path();
    return o;
  }
  std::string render(const std::string& src, const Value& vars = Value::object()) const {
    return Template::compile(src, "main.j2", options()).render(vars);
  }
  std::string error_of(const std::string& src, const Value& vars = Value::object()) const {
    try {
      render(src, vars);
    } catch (const Error& e) {
      return e.formatted();
    }
    return "no error";
  }
};

}  // namespace

TEST_CASE("include renders another template with the current context", "[template]") {
  Folder f;
  f.dir.write("tools.j2", "{% for t in tools %}- {{ t }}\n{% endfor %}");
  f.dir.write("sub/deeper.j2", "deep {{ x }}");
  CHECK(f.render("Tools:\n{% include 'tools.j2' %}", {{"tools", {"a", "b"}}}) == "Tools:\n- a\n- b\n");
  CHECK(f.render("{% for x in [1, 2] %}{% include 'sub/deeper.j2' %} {% endfor %}") == "deep 1 deep 2 ");
  CHECK(f.render("[{% include 'nope.j2' ignore missing %}]") == "[]");
}

TEST_CASE("a missing include is a compile error naming the folder", "[template]") {
  Folder f;
  std::string e = f.error_of("line\n  {% include 'nope.j2' %}");
  CHECK(e.rfind("main.j2:2:3: template 'nope.j2' not found in " + f.dir.path().string(), 0) == 0);
  CHECK(Folder{}.error_of("{% include x %}") == "main.j2:1:12: include needs a template name in quotes, got 'x'\n"
        "  {% include x %}\n"
        "             ^");
}

TEST_CASE("a template including itself stops at the depth limit", "[template]") {
  Folder f;
  f.dir.write("loop.j2", "again {% include 'loop.j2' %}");
  CHECK(f.error_of("{% include 'loop.j2' %}").find("templates include each other deeper than 16 levels") !=
        std::string::npos);
}

// Each file is read and compiled once per compile, however often it is included: ten includes of a file that
// includes the next ten times, eight deep, were 10^8 compiles; a file including itself four times was 4^16.
TEST_CASE("a template included many times is compiled once, and self-inclusion that branches still stops at once",
          "[template][hostile]") {
  Folder f;
  for (int i = 0; i < 8; ++i) {
    std::string includes;
    for (int k = 0; k < 10; ++k) includes += "{% include 't" + std::to_string(i + 1) + ".j2' %}";
    f.dir.write("t" + std::to_string(i) + ".j2", includes);
  }
  f.dir.write("t8.j2", "x");
  Template t = Template::compile("{% include 't6.j2' %}", "main.j2", f.options());
  CHECK(t.render(Value::object()) == std::string(100, 'x'));
  CHECK(f.error_of("{% include 't0.j2' %}").find("the render took more than 1000000 steps") != std::string::npos);
  f.dir.write("self.j2", "{% include 'self.j2' %}{% include 'self.j2' %}{% include 'self.j2' %}{% include 'self.j2' %}");
  CHECK(f.error_of("{% include 'self.j2' %}").find("templates include each other deeper than 16 levels") !=
        std::string::npos);
}

TEST_CASE("runaway macro recursion stops at the call depth limit", "[template]") {
  Folder f;
  CHECK(f.error_of("{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}")
            .find("macro calls nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("import and from-import bring macros and variables", "[template]") {
  Folder f;
  f.dir.write("lib.j2", "{% macro tag(name) %}<{{ name }}>{% endmacro %}{% set version = 3 %}ignored output");
  CHECK(f.render("{% import 'lib.j2' as lib %}{{ lib.tag('a') }} v{{ lib.version }}") == "<a> v3");
  CHECK(f.render("{% from 'lib.j2' import tag as t, version %}{{ t('b') }}{{ version }}") == "<b>3");
  CHECK(f.error_of("{% from 'lib.j2' import nothing %}").rfind(
            "main.j2:1:1: the template 'lib.j2' does not export 'nothing'", 0) == 0);
}

TEST_CASE("imported templates do not see the importer's context unless asked", "[template]") {
  Folder f;
  f.dir.write("lib.j2", "{% macro who() %}{{ user | default('nobody') }}{% endmacro %}");
  CHECK(f.render("{% import 'lib.j2' as lib %}{{ lib.who() }}", {{"user", "ann"}}) == "nobody");
  CHECK(f.render("{% import 'lib.j2' as lib with context %}{{ lib.who() }}", {{"user", "ann"}}) == "ann");
}

TEST_CASE("a macro's missing argument is undefined, extra ones go to varargs and kwargs", "[template]") {
  Folder f;
  CHECK(f.error_of("{% macro m(a, b) %}{{ b }}{% endmacro %}{{ m(1) }}").rfind("main.j2:1:23: undefined variable 'b'", 0) ==
        0);
  CHECK(f.render("{% macro m(a) %}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, k=3) }}") == "[2]{'k': 3}");
}

TEST_CASE("statement misuse is a located syntax error", "[template]") {
  Folder f;
  CHECK(f.error_of("{% break %}") == "main.j2:1:4: 'break' outside a for loop\n  {% break %}\n     ^");
  // A macro's body is a function of its own: the loop around its definition is not its loop.
  CHECK(f.error_of("{% for x in [1] %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}") ==
        "main.j2:1:37: 'continue' outside a for loop\n  {% for x in [1] %}{% macro m() %}{% continue %}{% endmacro %}"
        "{% endfor %}\n                                      ^");
  CHECK(f.error_of("{% for x in [[1]] %}{{ loop(x) }}{% endfor %}")
            .rfind("main.j2:1:28: loop() is for a recursive loop: write {% for ... recursive %}", 0) == 0);
  CHECK(f.error_of("{% with a = 1 b = 2 %}{% endwith %}")
            .rfind("main.j2:1:15: expected ',' between the with statement's assignments, got 'b'", 0) == 0);
  CHECK(f.error_of("{% call foo %}{% endcall %}") == "main.j2:1:9: expected a macro call after 'call'\n"
        "  {% call foo %}{% endcall %}\n"
        "          ^");
  CHECK(f.error_of("{% raw %}never closed") ==
        "main.j2:1:1: unclosed 'raw' block opened at line 1:1: expected '{% endraw %}' before the end\n"
        "  {% raw %}never closed\n"
        "  ^");
  CHECK(f.error_of("{% macro m(a=1, b) %}{% endmacro %}").rfind(
            "main.j2:1:18: parameter 'b' without a default follows one with a default", 0) == 0);
  CHECK(f.error_of("{% filter nosuch %}x{% endfilter %}") == "main.j2:1:1: unknown filter 'nosuch'\n"
        "  {% filter nosuch %}x{% endfilter %}\n"
        "  ^");
}

TEST_CASE("Jinja2's statements and globals the engine leaves out are named as unsupported, with what to write",
          "[template]") {
  Folder f;
  auto kind_and_message = [&](const std::string& src) {
    try {
      Template::compile(src, "main.j2", f.options());
      Template::compile(src, "main.j2", f.options()).render(Value::object());
    } catch (const Error& e) {
      return std::string(e.kind_name()) + ": " + e.message();
    }
    return std::string("no error");
  };
  CHECK(kind_and_message("{% extends 'base.j2' %}") ==
        "template.unsupported: 'extends' is not supported (template inheritance; docs/templates.md lists what is)");
  CHECK(kind_and_message("{% autoescape true %}{% endautoescape %}") ==
        "template.unsupported: 'autoescape' is not supported (there is no autoescaping: prompts are not HTML; "
        "docs/templates.md lists what is)");
  CHECK(kind_and_message("{{ [1, 2] | random }}") ==
        "template.unsupported: the filter 'random' is not supported: a prompt renders the same every time, so runs and tests repeat (pick with an input, or loop.cycle())");
  CHECK(kind_and_message("{{ lipsum() }}") == "template.unsupported: 'lipsum()' is not supported: it writes random "
                                              "text, and a prompt renders the same every time");
  CHECK(kind_and_message("{{ [1].append(2) }}") ==
        "template.render: list.append() changes the list, which templates may not do (as in Jinja2's sandbox); build "
        "a new list with filters or +");
  CHECK(kind_and_message("{{ {'a': 1}.update({'b': 2}) }}") ==
        "template.render: dict.update() changes the dict, which templates may not do (as in Jinja2's sandbox); build "
        "a new one with dict(), | items or a namespace");
  CHECK(kind_and_message("{{ '\\x4' }}") ==
        "template.syntax: truncated \\x escape in a string literal: it takes 2 hex digits");
}

TEST_CASE("raise_exception stops the render with the template's message", "[template]") {
  try {
    Template::compile("{% if n > 1 %}{{ raise_exception('only one') }}{% endif %}", "chat.j2").render({{"n", 2}});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == engine::ErrorKind::TemplateRaised);
    CHECK(std::string(e.what()) == "chat.j2:1:33: only one");
  }
}

TEST_CASE("chat templates use Hugging Face's tojson and whitespace options", "[template][chat]") {
  auto t = Template::compile_chat(
      "{% for m in messages %}\n  {{ m.role }}: {{ m.content }} {{ m | tojson }}\n{% endfor %}"
      "{% if add_generation_prompt %}assistant:{% endif %}",
      "chat.jinja");
  Value messages = Value::parse(R"([{"role": "user", "content": "<héllo>"}])");
  CHECK(t.render_chat(messages, true) ==
        "  user: <héllo> {\"role\": \"user\", \"content\": \"<héllo>\"}\nassistant:");
}

// Llama 3.1 and others write {%- if tools is not none %}: transformers passes tools (and documents) as None.
TEST_CASE("chat templates get tools and documents as none when there are none, as transformers passes them",
          "[template][chat]") {
  auto t = Template::compile_chat(
      "{% if tools is not none %}tools: {{ tools | length }}{% else %}no tools{% endif %}|"
      "{{ documents is defined }} {{ documents is none }}|{{ tools is defined }}",
      "chat.jinja");
  Value messages = Value::parse(R"([{"role": "user", "content": "hi"}])");
  CHECK(t.render_chat(messages, true) == "no tools|True True|True");
  CHECK(t.render_chat(messages, true, Value{{"tools", Value::array({{{"name", "calc"}}})}}) == "tools: 1|True True|True");
}

TEST_CASE("include and import cannot leave the template's folder: absolute names, '..', symlinks, /proc",
          "[template]") {
  Folder f;
  engine::test::TempDir outside;
  auto secret = outside.write("secret.j2", "sk-secret");
  std::filesystem::create_symlink(secret, f.dir.path() / "link.j2");
  std::string root = std::filesystem::canonical(f.dir.path()).string();
  std::string target = std::filesystem::canonical(secret).string();
  CHECK(f.error_of("{% include '/proc/self/environ' %}").find(
            "main.j2:1:1: cannot include '/proc/self/environ': '/proc/self/environ' resolves to '/proc/") == 0);
  CHECK(f.error_of("{% include '/proc/self/environ' %}").find("a system folder no workflow may read") !=
        std::string::npos);
  CHECK(f.error_of("x{% include '" + secret.string() + "' %}") ==
        "main.j2:1:2: cannot include '" + secret.string() + "': '" + secret.string() + "' resolves to '" + target +
            "', outside the folders a workflow may read (" + root + ")\n  x{% include '" + secret.string() +
            "' %}\n   ^");
  CHECK(f.error_of("{% include 'link.j2' %}").find("'link.j2' resolves to '" + target + "', outside") !=
        std::string::npos);
  CHECK(f.error_of("{% import '../" + outside.path().filename().string() + "/secret.j2' as s %}")
            .find("outside the folders a workflow may read") != std::string::npos);
  CHECK(f.error_of("{% include '/dev/zero' ignore missing %}").find("a system folder") != std::string::npos);
}

TEST_CASE("an include past the file size limit is a located error", "[template]") {
  Folder f;
  auto big = f.dir.write("big.j2", "");
  std::filesystem::resize_file(big, size_t{1} << 30);
  CHECK(f.error_of("{% include 'big.j2' %}") ==
        "main.j2:1:1: cannot read '" + std::filesystem::canonical(big).string() +
            "': it is 1024 MiB, more than the 16 MiB a file may have\n  {% include 'big.j2' %}\n  ^");
}

TEST_CASE("an include is looked for beside its template, then on the search path, and a miss names every place",
          "[template]") {
  namespace fs = std::filesystem;
  engine::test::TempDir dir;
  dir.write("own/parts/local.j2", "mine");
  dir.write("shared/parts/header.j2", "Answer briefly.");
  dir.write("shared/parts/local.j2", "shared");
  fs::path own = fs::canonical(dir.path()) / "own", shared = fs::canonical(dir.path()) / "shared";
  TemplateOptions o;
  o.include_dir = own;
  o.scope = std::make_shared<const engine::FileScope>(std::vector<fs::path>{own}, std::vector<fs::path>{shared});
  auto t = Template::compile("{% include 'parts/header.j2' %}|{% include 'parts/local.j2' %}", "t", o);
  CHECK(t.render(Value::object()) == "Answer briefly.|mine");
  try {
    Template::compile("{% include 'parts/none.j2' %}", "t", o);
    FAIL("compiled");
  } catch (const Error& e) {
    CHECK(e.formatted() == "t:1:1: template 'parts/none.j2' not found in " + own.string() + " or " + shared.string() +
                               "\n  {% include 'parts/none.j2' %}\n  ^");
  }
}
