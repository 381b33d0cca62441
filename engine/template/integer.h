#pragma once
// Integer arithmetic for templates. Jinja2 computes with Python's unbounded integers; the engine's are 64-bit.
// A result that fits is exact; one that does not is a "template.integer_overflow" error naming the operation,
// never a wrapped number ({{ 2**64 }} must not print 0) nor a trap (the minimum // -1 is SIGFPE in C++).
#include <string>

#include "engine/core/value.h"

namespace engine::tmpl {

// The value as a 64-bit integer: booleans as 0 and 1, integers as they are; an unsigned integer past 2^63-1 (from
// JSON data) throws BuiltinError with kind template.integer_overflow.
long long int_of(const Value& v);
// A float as an integer, truncated toward zero as Python's int(); infinities, NaN and floats past the 64-bit range
// throw (kind template.integer_overflow, or template.render for NaN).
long long int_from_double(double d);

// x op y for op in + - * // % **, with Python's floor semantics; a negative exponent is not an integer operation
// (the caller computes a float).
long long int_arith(const std::string& op, long long x, long long y);
long long int_negate(long long x);

}  // namespace engine::tmpl
