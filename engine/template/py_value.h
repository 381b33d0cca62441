#pragma once
// Python's view of a Value, because Jinja2 prints and compares values the way Python does:
// str(True) is "True", str(1.0) is "1.0", lists print as "['a', 1]", "/" on ints gives a float.
#include <string>
#include <string_view>

#include "engine/core/error_kind.h"
#include "engine/core/value.h"

namespace engine::tmpl {

// Thrown by builtins and value operations; the renderer adds the template location.
struct BuiltinError {
  std::string message;
  ErrorKind kind = ErrorKind::TemplateRender;
};

bool truthy(const Value& v);
std::string py_str(const Value& v);    // str(v)
void append_py_str(std::string& out, const Value& v);
std::string py_repr(const Value& v);   // repr(v)
std::string float_repr(double d);      // repr(float), e.g. "1.0", "1e-05", "1e+16"
std::string type_name(const Value& v);  // Python's name for the type: "str", "int", "dict", ...

// json.dumps(v, sort_keys=..., indent=...) with ensure_ascii, as Jinja2's tojson calls it, then made HTML-safe.
std::string tojson(const Value& v, int indent, bool sort_keys = true);
// json.dumps(v, ensure_ascii=False, indent=...), as Hugging Face's tojson for chat templates.
std::string plain_json_dumps(const Value& v, int indent);

// A Python dict's keys may be any value ({1: 'a', 10: 'b'} sorts and indexes by integer); a Value's are text. A
// key that is not text (an integer, a float, a bool, none) is held as text no input holds: a 0xFF byte (never in
// UTF-8), a type letter, and its repr. Only templates make such keys, and they leave a template as text.
std::string dict_key(const Value& key);
Value key_of(const std::string& object_key);  // the key as the template sees it
inline bool is_typed_key(const std::string& k) { return !k.empty() && static_cast<unsigned char>(k[0]) == 0xFF; }
// Writes every typed key of `v` as json.dumps writes it (1 -> "1", True -> "true", None -> "null"), in place.
void make_keys_text(Value& v);

bool py_equal(const Value& a, const Value& b);
// <0, 0, >0 like Python's ordering; throws BuiltinError for types Python cannot order.
int py_compare(const Value& a, const Value& b);

}  // namespace engine::tmpl
