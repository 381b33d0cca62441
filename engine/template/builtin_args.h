#pragma once
// What the builtins (filters, tests, methods) share for reading their arguments: each failure a BuiltinError the
// renderer locates.
#include <string>

#include "engine/core/limits.h"
#include "engine/core/value.h"
#include "engine/template/integer.h"
#include "engine/template/py_value.h"

namespace engine::tmpl::builtin {

[[noreturn]] inline void fail(std::string msg) { throw BuiltinError{std::move(msg)}; }

inline const std::string& need_string(const Value& v, const char* what) {
  if (!v.is_string()) fail(std::string(what) + " expects a string, got " + type_name(v));
  return v.get_ref<const std::string&>();
}

inline long long need_int(const Value* v, long long dflt, const char* what) {
  if (!v) return dflt;
  if (v->is_number_integer() || v->is_number_unsigned() || v->is_boolean()) return int_of(*v);
  if (v->is_number_float()) return int_from_double(v->get<double>());
  fail(std::string(what) + " expects an integer, got " + type_name(*v));
}

inline size_t need_width(const Value* v, long long dflt, const char* what) {
  long long n = need_int(v, dflt, what);
  if (n < 0 || n > limits::kTemplateWidth)
    fail("a width of " + std::to_string(n) + " is not one from 0 to " + std::to_string(limits::kTemplateWidth));
  return static_cast<size_t>(n);
}

}  // namespace engine::tmpl::builtin
