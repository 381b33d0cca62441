// Layered render variables: a run's own names over its inputs, read where they lie.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "engine/template/template.h"

using namespace engine;
using engine::tmpl::Template;
using engine::tmpl::Vars;

TEST_CASE("layered vars: the first layer that has a name wins, a named layer binds the whole value", "[template]") {
  Value own{{"scratchpad", "s"}, {"input", "own"}};
  Value inputs{{"input", "given"}, {"topic", "tides"}};
  auto vars = Vars::of(own).then_named("inputs", inputs).then(inputs);
  auto t = Template::compile("{{ input }} {{ topic }} {{ inputs.input }} {{ inputs | length }} {{ scratchpad }}", "t.j2");
  CHECK(t.render(vars) == "own tides given 2 s");
  CHECK(vars.find("missing") == nullptr);
  CHECK(vars.find("topic") == &inputs["topic"]);  // borrowed, not copied
}

TEST_CASE("layered vars: a layer that is not an object has no names, and an undefined name is still an error",
          "[template]") {
  Value own = Value::object();
  Value text = "plain";
  auto vars = Vars::of(own).then_named("inputs", text).then(text);
  CHECK(Template::compile("{{ inputs }}", "t.j2").render(vars) == "plain");
  CHECK_THROWS_WITH(Template::compile("{{ plain }}", "t.j2").render(vars),
                    Catch::Contains("undefined variable 'plain'"));
}

TEST_CASE("layered vars: flatten gives one object, earlier layers winning, for imports with context", "[template]") {
  Value own{{"a", 1}};
  Value base{{"a", 2}, {"b", 3}};
  auto vars = Vars::of(own).then_named("base", base).then(base);
  CHECK(vars.flatten() == Value{{"a", 1}, {"b", 3}, {"base", {{"a", 2}, {"b", 3}}}});
}

TEST_CASE("layered vars: an imported macro sees the importer's layered context", "[template]") {
  auto dir = std::filesystem::temp_directory_path() / "engine_vars_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "m.j2") << "{% macro greet() %}hello {{ name }} from {{ inputs.place }}{% endmacro %}";
  }
  tmpl::TemplateOptions o;
  o.include_dir = dir;
  auto t = Template::compile("{% from 'm.j2' import greet with context %}{{ greet() }}", "t.j2", o);
  Value own = Value::object();
  Value inputs{{"name", "Ann"}, {"place", "Leeds"}};
  CHECK(t.render(Vars::of(own).then_named("inputs", inputs).then(inputs)) == "hello Ann from Leeds");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a large value printed into the output is the same text, whatever room it is given", "[template]") {
  std::string big(300'000, 'd');
  big[150'000] = 'e';
  auto t = Template::compile("head {{ doc }} mid {{ doc }} tail{% for i in range(3) %}.{% endfor %}", "t.j2");
  CHECK(t.render(Value{{"doc", big}}) == "head " + big + " mid " + big + " tail...");
}
