// A template and its context: the text up to a line "---" is the template, the rest (JSON) the variables. It is
// compiled, then rendered in strict and lenient mode. Only engine::Error may come out.
#include "engine/core/json_parse.h"
#include "engine/template/template.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  std::string_view text = fuzz::as_text(data, size);
  size_t split = text.find("\n---\n");
  std::string source(text.substr(0, split));
  Value vars = split == std::string_view::npos ? Value::object() : parse_json(text.substr(split + 5));
  if (!vars.is_object()) vars = Value::object();
  for (bool strict : {true, false}) {
    tmpl::TemplateOptions options;
    options.strict_undefined = strict;
    options.max_output_bytes = 1 << 20;  // the same code paths as the defaults, at sizes a fuzzer iterates through
    options.max_render_steps = 200'000;
    fuzz::expect_value_or_error([&] { tmpl::Template::compile(source, "fuzz.j2", options).render(vars); });
  }
  fuzz::expect_value_or_error([&] { tmpl::Template::compile_chat(source, "fuzz.jinja").render_chat(Value::array(), true); });
  return 0;
}
