#include "engine/template/integer.h"

#include <climits>
#include <cmath>

#include "engine/template/py_value.h"

namespace engine::tmpl {
namespace {

[[noreturn]] void overflow(const std::string& what) {
  throw BuiltinError{"integer overflow: " + what +
                         " does not fit in 64 bits (Jinja2 computes it exactly; the engine's integers are 64-bit)",
                     ErrorKind::TemplateIntegerOverflow};
}

std::string expr(long long x, const std::string& op, long long y) {
  return std::to_string(x) + " " + op + " " + (y < 0 ? "(" + std::to_string(y) + ")" : std::to_string(y));
}

}  // namespace

long long int_of(const Value& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(LLONG_MAX))
    overflow(std::to_string(v.get<unsigned long long>()));
  return v.get<long long>();
}

long long int_from_double(double d) {
  if (std::isnan(d)) throw BuiltinError{"cannot convert float NaN to integer"};
  // 2^63 is exactly representable; every double below it in magnitude truncates to a valid long long
  if (!(std::fabs(d) < 9223372036854775808.0)) overflow(float_repr(d));
  return static_cast<long long>(d);
}

long long int_negate(long long x) {
  if (x == LLONG_MIN) overflow("-(" + std::to_string(x) + ")");
  return -x;
}

long long int_arith(const std::string& op, long long x, long long y) {
  long long r = 0;
  if (op == "+") {
    if (__builtin_add_overflow(x, y, &r)) overflow(expr(x, op, y));
    return r;
  }
  if (op == "-") {
    if (__builtin_sub_overflow(x, y, &r)) overflow(expr(x, op, y));
    return r;
  }
  if (op == "*") {
    if (__builtin_mul_overflow(x, y, &r)) overflow(expr(x, op, y));
    return r;
  }
  if (op == "//" || op == "%") {
    if (y == 0) throw BuiltinError{"integer division or modulo by zero"};
    if (x == LLONG_MIN && y == -1) {
      if (op == "%") return 0;
      overflow(expr(x, op, y));
    }
    long long q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) --q, m += y;  // Python floors
    return op == "//" ? q : m;
  }
  if (op == "**") {
    // 0, 1 and -1 stay small for any exponent; any other base leaves the range within 63 multiplications.
    if (x == 0) return y == 0 ? 1 : 0;
    if (x == 1) return 1;
    if (x == -1) return y % 2 == 0 ? 1 : -1;
    long long p = 1;
    for (long long i = 0; i < y; ++i)
      if (__builtin_mul_overflow(p, x, &p)) overflow(expr(x, op, y));
    return p;
  }
  throw BuiltinError{"unknown operator " + op};
}

}  // namespace engine::tmpl
