#pragma once
// Python's pprint.pformat, as Jinja2's pprint filter calls it: the repr when it fits in 80 columns, else dicts (keys
// sorted) and lists one item a line, long strings cut into parenthesised pieces at word ends.
#include <string>

#include "engine/core/value.h"

namespace engine::tmpl {

std::string pretty_printed(const Value& v, size_t width = 80);

}  // namespace engine::tmpl
