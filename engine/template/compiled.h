#pragma once
// Internal: what compile() produces and render() walks.
#include <string>
#include <vector>

#include "engine/core/source.h"
#include "engine/template/ast.h"
#include "engine/template/options.h"
#include "engine/template/template.h"
#include "engine/template/vars.h"

namespace engine::tmpl {

struct Compiled {
  SourceText source;
  TemplateOptions options;
  Body body;
  std::vector<std::string> free_names;
  std::vector<NamePath> free_paths;
};

void render_compiled(const Compiled& c, const Vars& vars, std::string& out);
// The value of a template that is one expression (Template::compile_expression).
Value evaluate_compiled(const Compiled& c, const Vars& vars);

}  // namespace engine::tmpl
