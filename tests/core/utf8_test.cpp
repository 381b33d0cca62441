// UTF-8, read and cut in one place: sequences judged as the standard does, characters counted and never split.
#include <catch2/catch.hpp>

#include <string>

#include "engine/core/utf8.h"

using namespace engine;

TEST_CASE("invalid UTF-8 and NUL bytes are found", "[core]") {
  CHECK(utf8::find_invalid("plain ascii") == std::string::npos);
  CHECK(utf8::find_invalid("日本語") == std::string::npos);
  CHECK(utf8::find_invalid(std::string("ab\0c", 4)) == 2);
  CHECK(utf8::find_invalid("ab\xff") == 2);
  CHECK(utf8::find_invalid("\xe6\x97") == 0);  // truncated sequence
}

TEST_CASE("utf8: a sequence is valid only in its shortest form, below U+10FFFF and not a surrogate", "[core][utf8]") {
  CHECK(utf8::sequence_length("a", 0) == 1);
  CHECK(utf8::sequence_length("\xc3\xa9", 0) == 2);
  CHECK(utf8::sequence_length("\xe6\x97\xa5", 0) == 3);
  CHECK(utf8::sequence_length("\xf0\x9f\x98\x80", 0) == 4);
  CHECK(utf8::sequence_length("\xc0\xaf", 0) == 0);          // overlong '/'
  CHECK(utf8::sequence_length("\xed\xa0\x80", 0) == 0);      // a surrogate
  CHECK(utf8::sequence_length("\xf4\x90\x80\x80", 0) == 0);  // past U+10FFFF
  CHECK(utf8::sequence_length("\xa9", 0) == 0);              // a continuation byte alone
  uint32_t cp = 7;
  CHECK(utf8::decode("x\xe6\x97\xa5", 1, cp) == 3);
  CHECK(cp == 0x65E5);
  CHECK(utf8::decode("\xc0\xaf", 0, cp) == 0);
  CHECK(cp == 0x65E5);  // untouched
  std::string out;
  utf8::append(out, 0x1F600);
  CHECK(out == "\xf0\x9f\x98\x80");
  CHECK(utf8::replace_invalid("a\xff" "b") == "a\xef\xbf\xbd" "b");
}

TEST_CASE("utf8: characters counted, and text cut or offset without splitting one", "[core][utf8]") {
  const std::string text = "a\xc3\xa9\xe6\x97\xa5!";  // a, é, 日, !
  CHECK(utf8::count(text) == 4);
  CHECK(utf8::cut(text, 2) == 1);   // inside é: back to its start
  CHECK(utf8::cut(text, 3) == 3);
  CHECK(utf8::cut(text, 5) == 3);   // inside 日
  CHECK(utf8::cut(text, 100) == text.size());
  CHECK(utf8::offset(text, 0) == 0);
  CHECK(utf8::offset(text, 2) == 3);
  CHECK(utf8::offset(text, 3) == 6);
  CHECK(utf8::offset(text, 9) == text.size());
  CHECK(utf8::complete_end(text, 5) == 3);  // 日 unfinished
  CHECK(utf8::complete_end(text, 6) == 6);
  CHECK(utf8::complete_end("", 0) == 0);
}
