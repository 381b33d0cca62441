#pragma once
// What a template made from a regex match sees (scripted rules' replies, keyword parsers' inputs): each named group
// by its name, and `groups` by number (group 0 the whole match; an unset group is none).
#include <string>
#include <vector>

#include "engine/core/value.h"
#include "engine/parse/regex.h"

namespace engine::assemble {

Value match_context(const parse::RegexMatch& match, const std::vector<std::string>& group_names);

}  // namespace engine::assemble
