#pragma once
// UTF-8, the one place the engine reads and cuts it: validating a sequence, finding the first bad byte, writing a
// code point, replacing what is not UTF-8, counting characters and cutting text without splitting one. Text from
// outside (answers, tool results, files) may hold anything; these never read past its end.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace engine::utf8 {

// Whether `c` continues a sequence (10xxxxxx) rather than starting a character.
inline bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the sequence at s[i] (1 to 4), or 0 when none starts there (a stray continuation byte, a cut
// sequence, an overlong form, a surrogate, a code point past U+10FFFF).
size_t sequence_length(std::string_view s, size_t i);
// Where the first invalid sequence or NUL byte starts, or npos when the text is clean UTF-8.
size_t find_invalid(std::string_view s);
// A code point written as UTF-8 (the caller keeps it to U+10FFFF).
void append(std::string& out, uint32_t cp);
// `s` with each byte that starts no sequence replaced by U+FFFD, as a browser or Python's errors="replace" shows it.
std::string replace_invalid(std::string_view s);

// The characters of `s`: its bytes that start one (a stray continuation byte counts for none).
size_t count(std::string_view s);
// The largest position at or before `at` that splits no character: where `s` may be cut to at most `at` bytes.
size_t cut(std::string_view s, size_t at);
// Where the character numbered `chars` (from 0) starts, or the end: `s` after its first `chars` characters.
size_t offset(std::string_view s, size_t chars);
// Where a character left unfinished at the end of s[0, end) starts, or `end` when the last one is whole: what of a
// stream's piece may be shown before the next piece comes.
size_t complete_end(std::string_view s, size_t end);
// The code point of the valid sequence at s[i] and its length, or 0 (and `cp` untouched) when none starts there.
size_t decode(std::string_view s, size_t i, uint32_t& cp);

}  // namespace engine::utf8
