#include "engine/assemble/template_checks.h"

#include <algorithm>

#include "engine/assemble/spec_errors.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::assemble {

tmpl::TemplateOptions template_options(const spec::TemplateFlags& f) {
  tmpl::TemplateOptions o;
  o.strict_undefined = f.strict_undefined;
  o.trim_blocks = f.trim_blocks;
  o.lstrip_blocks = f.lstrip_blocks;
  return o;
}

std::vector<std::string> input_names(const spec::WorkflowSpec& s) {
  std::vector<std::string> names;
  for (const auto& i : s.inputs) names.push_back(i.name);
  return names;
}

// A template may only read declared inputs and what the engine provides; anything else is a typo that would
// otherwise surface mid-run. A lenient template (strict_undefined: false) has chosen to read absent names as empty.
void check_free_names(const tmpl::Template& t, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& provided, const std::string& what, const SourceLoc& loc,
                      const spec::WorkflowSpec& s, const spec::TemplateSource* source) {
  if (!t.options().strict_undefined) return;
  std::vector<std::string> known = inputs;
  known.insert(known.end(), provided.begin(), provided.end());
  for (const auto& name : t.free_names()) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string hint = did_you_mean(name, known);
    std::string declared = inputs.empty() ? "no inputs are declared" : "declared inputs: " + join(inputs, ", ");
    std::string message = what + " uses '" + name + "', which is not a declared input" +
                          (hint.empty() ? " (" + declared + ")" : hint);
    // A template file of its own (given, and not written under a key of the YAML): located where it reads the name.
    if (source && source->given && source->key_path.empty())
      for (const tmpl::NamePath& read : t.free_paths())
        if (!read.parts.empty() && read.parts[0] == name && read.line > 0)
          throw t.error_at(read.line, read.col, ErrorKind::SpecUndeclaredVariable, message);
    throw Error(ErrorKind::SpecUndeclaredVariable, message, loc, quoted_line(s, loc));
  }
}

std::optional<Embedding> embedding_in(const spec::WorkflowSpec& s, const SourceLoc& loc, const std::string& key_path) {
  if (!s.source || !loc.known()) return std::nullopt;
  return Embedding{s.source, loc.line, loc.col, key_path, 0};
}

tmpl::Template compile_template(const spec::TemplateSource& src, const spec::TemplateFlags& flags,
                                const spec::WorkflowSpec& spec) {
  tmpl::TemplateOptions options = template_options(src.overrides.over(flags));
  options.include_dir = src.dir;
  options.scope = spec.scope;
  if (!src.key_path.empty()) options.embedding = embedding_in(spec, src.loc, src.key_path);
  return tmpl::Template::compile(src.text, src.origin, options);
}

}  // namespace engine::assemble
