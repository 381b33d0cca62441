// Replays tests/template/corpus/cases.json: every expected output there is what Jinja2 rendered
// (tests/template/corpus/generate.py). A mismatch is a prompt that differs from what its author saw in Jinja2.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/template/template.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const Value& corpus() {
  static const Value cases = Value::parse(read_file(test::source_path("tests/template/corpus/cases.json")));
  return cases;
}

tmpl::TemplateOptions options_of(const Value& o) {
  tmpl::TemplateOptions t;
  t.strict_undefined = o.value("strict", true);
  t.trim_blocks = o.value("trim_blocks", false);
  t.lstrip_blocks = o.value("lstrip_blocks", false);
  t.keep_trailing_newline = o.value("keep_trailing_newline", false);
  return t;
}

std::string render_case(const Value& c) {
  test::TempDir dir;
  tmpl::TemplateOptions options = options_of(c["options"]);
  for (const auto& [name, text] : c["files"].items()) dir.write(name, text.get<std::string>());
  options.include_dir = dir.path();
  return tmpl::Template::compile(c["template"].get<std::string>(), "t.j2", options).render(c["context"]);
}

}  // namespace

TEST_CASE("the corpus renders byte for byte as Jinja2", "[template][corpus]") {
  int checked = 0;
  for (const auto& c : corpus()) {
    if (!c.contains("expected") || c.contains("chat_template")) continue;
    INFO("case " << c["name"].get<std::string>() << ": " << c["template"].get<std::string>());
    std::string got;
    try {
      got = render_case(c);
    } catch (const Error& e) {
      got = "ERROR: " + e.formatted();
    }
    CHECK(got == c["expected"].get<std::string>());
    ++checked;
  }
  CHECK(checked >= 200);
}

TEST_CASE("the corpus's bad templates fail where Jinja2 fails, with located messages", "[template][corpus]") {
  int checked = 0;
  for (const auto& c : corpus()) {
    if (!c.contains("error")) continue;
    INFO("case " << c["name"].get<std::string>() << ": " << c["template"].get<std::string>());
    std::string got = "no error";
    try {
      render_case(c);
    } catch (const Error& e) {
      got = e.formatted();
    }
    const std::string& want = c["error"].get_ref<const std::string&>();
    CHECK(got.substr(0, want.size()) == want);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("chat templates render conversations as transformers does", "[template][corpus][chat]") {
  int checked = 0, models = 0;
  std::string last_model;
  for (const auto& c : corpus()) {
    if (!c.contains("chat_template")) continue;
    const std::string file = c["chat_template"];
    if (file != last_model) ++models, last_model = file;
    INFO("case " << c["name"].get<std::string>());
    auto t = tmpl::Template::compile_chat(read_file(test::source_path("tests/template/corpus/" + file)), file);
    std::string got;
    try {
      got = t.render_chat(c["messages"], c["add_generation_prompt"].get<bool>(), c["context"]);
    } catch (const Error& e) {
      got = "RAISED: " + e.message();
    }
    if (c.contains("raised")) CHECK(got == "RAISED: " + c["raised"].get<std::string>());
    else CHECK(got == c["expected"].get<std::string>());
    ++checked;
  }
  CHECK(models >= 5);
  CHECK(checked >= 60);
}
