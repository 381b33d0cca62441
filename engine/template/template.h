#pragma once
// A Jinja-style template, compiled once and rendered many times (by many threads: it is immutable).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/source.h"
#include "engine/core/value.h"
#include "engine/template/options.h"
#include "engine/template/vars.h"

namespace engine::tmpl {

struct Compiled;

// A name the template reads from its context, with the attributes it reads of it: `steps.draft.output.text` is
// {steps, draft, output, text} (a literal subscript, `steps['draft']`, counts as an attribute), at its place.
struct NamePath {
  std::vector<std::string> parts;
  int line = 0;
  int col = 0;
};

class Template {
 public:
  // Throws a located Error ("template.syntax", "template.unknown_filter", ...) naming the template's line and column.
  static Template compile(std::string source, std::string name, TemplateOptions options = {});
  // Reads and compiles a file; includes resolve against its folder unless options say otherwise.
  static Template compile_file(const std::filesystem::path& path, TemplateOptions options = {});

  // `vars` is an object, or several layered (tmpl::Vars). Throws a located Error ("template.undefined",
  // "template.render") on failure.
  std::string render(const Vars& vars) const;
  std::string render(const Value& vars) const { return render(Vars::of(vars)); }
  void render_to(const Vars& vars, std::string& out) const;  // appends to `out`
  void render_to(const Value& vars, std::string& out) const { render_to(Vars::of(vars), out); }

  // A Hugging Face chat template (the Jinja string of a tokenizer_config.json), compiled with the options
  // transformers uses: trim_blocks, lstrip_blocks, lenient undefined, plain tojson.
  static Template compile_chat(std::string source, std::string name);
  // Renders `messages` ([{role, content}, ...]) into one prompt; `extra` adds bos_token, eos_token, tools, ...
  std::string render_chat(const Value& messages, bool add_generation_prompt, const Value& extra = Value::object()) const;

  // An expression alone (`steps.classify.output == 'billing'`), as `{% if %}` takes one: compiled once, evaluated
  // to its value. Throws "template.syntax" for anything that is not exactly one expression.
  static Template compile_expression(const std::string& expression, std::string name, TemplateOptions options = {});
  Value evaluate(const Vars& vars) const;
  Value evaluate(const Value& vars) const { return evaluate(Vars::of(vars)); }
  bool test(const Vars& vars) const;  // the expression's truth, as `{% if %}` tests it

  const std::string& name() const;
  const TemplateOptions& options() const;
  // Names the template reads from its context (not those it binds itself with for/set), in first-use order.
  const std::vector<std::string>& free_names() const;
  // Every read of a free name, as the longest attribute path read of it, in source order (one entry per read).
  const std::vector<NamePath>& free_paths() const;
  // Where a line and column of the template are in the file it is written in (a block scalar in a workflow), for an
  // error about what is read there; nothing when the template is not embedded or the place cannot be told.
  std::optional<SourceLoc> place_in_file(int line, int col) const;
  // An Error located where the template (or, for an expression, the expression itself) is written: what a step says
  // of the value an expression gave (a for_each that is not a list).
  Error error_at_start(ErrorKind kind, std::string message) const;
  // An Error located at a line and column of the template, with its line quoted: what a check says of a name the
  // template reads (free_paths() give where).
  Error error_at(int line, int col, ErrorKind kind, std::string message) const;

 private:
  explicit Template(std::shared_ptr<const Compiled> c) : compiled_(std::move(c)) {}
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace engine::tmpl
