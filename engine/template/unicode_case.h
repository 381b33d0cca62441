#pragma once
// Python's str case methods over UTF-8: upper, lower, capitalize, swapcase and the character classes the is*()
// methods test. Letters map through the C library's Unicode tables (the C.UTF-8 locale), with Python's full
// mappings where one letter becomes two (ß upper is SS). Bytes that are not UTF-8 pass through unchanged.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/utf8.h"  // utf8::append, for this header's users

namespace engine::tmpl {

std::string to_upper(std::string_view s);
std::string to_lower(std::string_view s);
std::string swap_case(std::string_view s);
// The first character upper, the rest lower, as str.capitalize.
std::string capitalized(std::string_view s);

// Code points of `s`, each with its bytes (invalid bytes are one "code point" each, never letters).
struct CodePoint {
  uint32_t cp;
  std::string_view bytes;
  bool valid;
};
std::vector<CodePoint> code_points(std::string_view s);
// How many characters Python counts in `s` (len, slicing, truncate, center): its code points, an invalid byte one.
size_t character_count(std::string_view s);

bool char_is_alpha(uint32_t cp);
bool char_is_digit(uint32_t cp);
bool char_is_space(uint32_t cp);
bool char_is_upper(uint32_t cp);
bool char_is_lower(uint32_t cp);
uint32_t upper_of(uint32_t cp);
uint32_t lower_of(uint32_t cp);

}  // namespace engine::tmpl
