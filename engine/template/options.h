#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "engine/core/file_scope.h"
#include "engine/core/limits.h"
#include "engine/core/source.h"

namespace engine::tmpl {

struct TemplateOptions {
  bool strict_undefined = true;  // an undefined variable used in output is an error (Jinja2's StrictUndefined)
  bool trim_blocks = false;      // remove the first newline after a block tag, as Jinja2's option
  bool lstrip_blocks = false;    // strip spaces and tabs before a block tag at the start of a line
  bool keep_trailing_newline = false;  // Jinja2 drops one newline at the end of the source unless asked
  size_t max_output_bytes = limits::kTemplateOutputBytes;  // a render that grows past this fails instead of eating memory
  std::filesystem::path include_dir;    // where {% include %} and {% import %} names are looked up
  // What includes may read; none given: include_dir and below (an absolute name or ".." cannot leave it).
  std::shared_ptr<const FileScope> scope;
  int max_call_depth = limits::kTemplateCallDepth;              // macro calls and caller() nested deeper than this fail
  // Statements, loop iterations and macro calls one render may take: a ReAct prompt takes a few hundred; a loop
  // that prints nothing is stopped here rather than by the output limit it never reaches.
  uint64_t max_render_steps = limits::kTemplateRenderSteps;
  // tojson as Hugging Face chat templates define it: json.dumps without HTML escaping, non-ASCII kept,
  // keys in their order (Jinja2's own tojson sorts keys and escapes <, >, &, ').
  bool plain_tojson = false;
  // Where the template is written inside a bigger file (inline in the workflow's YAML): its errors point there.
  std::optional<Embedding> embedding;
};

}  // namespace engine::tmpl
