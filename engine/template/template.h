#pragma once
// A Jinja-style template, compiled once and rendered many times (by many threads: it is immutable).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/source.h"
#include "engine/core/value.h"
#include "engine/template/options.h"

namespace engine::tmpl {

struct Compiled;

class Template {
 public:
  // Throws a located Error ("template.syntax", "template.unknown_filter", ...) naming the template's line and column.
  static Template compile(std::string source, std::string name, TemplateOptions options = {});

  // `vars` must be an object. Throws a located Error ("template.undefined", "template.render") on failure.
  std::string render(const Value& vars) const;
  void render_to(const Value& vars, std::string& out) const;  // appends to `out`

  const std::string& name() const;
  // Names the template reads from its context (not those it binds itself with for/set), in first-use order.
  const std::vector<std::string>& free_names() const;

 private:
  explicit Template(std::shared_ptr<const Compiled> c) : compiled_(std::move(c)) {}
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace engine::tmpl
