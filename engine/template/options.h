#pragma once
#include <cstddef>

namespace engine::tmpl {

struct TemplateOptions {
  bool strict_undefined = true;  // an undefined variable used in output is an error (Jinja2's StrictUndefined)
  bool trim_blocks = false;      // remove the first newline after a block tag, as Jinja2's option
  bool lstrip_blocks = false;    // strip spaces and tabs before a block tag at the start of a line
  bool keep_trailing_newline = false;  // Jinja2 drops one newline at the end of the source unless asked
  size_t max_output_bytes = 16u << 20;  // a render that grows past this fails instead of eating memory
};

}  // namespace engine::tmpl
