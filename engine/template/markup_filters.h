#pragma once
// Jinja2's filters for text bound for HTML and URLs: filesizeformat, striptags, urlencode, xmlattr, forceescape,
// and pprint. builtins.cpp lists them with the rest.
#include "engine/template/builtins.h"

namespace engine::tmpl {

Value f_filesizeformat(const Value& v, const CallArgs& a);
Value f_striptags(const Value& v, const CallArgs& a);
Value f_urlencode(const Value& v, const CallArgs& a);
Value f_xmlattr(const Value& v, const CallArgs& a);
Value f_pprint(const Value& v, const CallArgs& a);

// & < > " ' as HTML entities, as Jinja2's escape writes them.
std::string html_escaped(std::string_view s);

}  // namespace engine::tmpl
