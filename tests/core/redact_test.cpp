// A key never leaves the process, whole or in part: every run of eight or more of its bytes is masked, before
// anything cuts the text, and a stream shows exactly what the whole text redacts to.
#include <catch2/catch.hpp>

#include "engine/core/redact.h"
#include "engine/core/text.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const std::string kKey = "sk-proj-Zq8v2LmN4xR7tY1wK9pB";

// The text fed in pieces cut at `cuts`, as a stream shows it.
std::string streamed(const Redactor& r, const std::string& whole, const std::vector<size_t>& cuts) {
  std::string text, shown;
  size_t done = 0, from = 0;
  for (size_t cut : cuts) {
    text += whole.substr(from, cut - from);
    from = cut;
    done = r.redact_stream(text, done, text.size(), false, shown);
  }
  text += whole.substr(from);
  r.redact_stream(text, done, text.size(), true, shown);
  return shown;
}


}  // namespace

TEST_CASE("redact: the whole key and every piece of eight bytes or more become ***", "[core][redact]") {
  Redactor r({kKey});
  CHECK(r.redact("Bearer " + kKey + " was refused") == "Bearer *** was refused");
  CHECK(r.redact("key " + kKey.substr(0, 15) + "... is invalid") == "key ***... is invalid");
  CHECK(r.redact("ends with " + kKey.substr(kKey.size() - 9)) == "ends with ***");
  CHECK(r.redact("middle " + kKey.substr(5, 10) + " here") == "middle *** here");
  CHECK(r.redact(kKey + kKey) == "******");
  CHECK(r.redact("sk-proj-") == "***");  // the key's first eight bytes are a piece of it too
  CHECK(r.redact("four " + kKey.substr(kKey.size() - 4)) == "four " + kKey.substr(kKey.size() - 4));
  CHECK(r.redact("sk-proj no match") == "sk-proj no match");
  CHECK(r.redact("") == "");
}

TEST_CASE("redact: short secrets mask whole occurrences only, tiny ones nothing", "[core][redact]") {
  CHECK(Redactor({"abcdef"}).redact("a abcdef b abcde") == "a *** b abcde");
  CHECK(Redactor({"abc"}).redact("x abc y") == "x abc y");
  CHECK(Redactor().redact("no secrets") == "no secrets");
  CHECK(Redactor({"", "one two"}).redact("one two") == "***");
}

TEST_CASE("redact: before an excerpt is cut, so a key cut in half is still masked", "[core][redact]") {
  std::string body = "{\"error\": \"Incorrect API key provided: " + kKey + "\"}";
  std::string cut_first = quote_excerpt(body, 50);
  CHECK(test::holds_piece_of_key(cut_first, kKey));  // the reason for the order: cut first, and a piece survives
  CHECK(Redactor({kKey}).redact(cut_first).find("***") != std::string::npos);
  std::string right = quote_excerpt(Redactor({kKey}).redact(body), 50);
  CHECK(right == "'{\"error\": \"Incorrect API key provided: ***\"}'");
  CHECK_FALSE(test::holds_piece_of_key(right, kKey));
}

TEST_CASE("redact: a stream split at any point shows exactly the redacted whole", "[core][redact]") {
  Redactor r({kKey});
  for (const std::string& whole :
       {"Thought: the key is " + kKey + ", done", kKey, "x" + kKey.substr(0, 12) + "y" + kKey.substr(3),
        std::string("sssssk-proj-Zq8v"), std::string("no secret at all here"), kKey.substr(0, 7) + "!"}) {
    std::string expected = r.redact(whole);
    CHECK_FALSE(test::holds_piece_of_key(expected, kKey));
    for (size_t a = 0; a <= whole.size(); ++a) {
      CHECK(streamed(r, whole, {a}) == expected);
      for (size_t b = a; b <= whole.size(); b += 3) CHECK(streamed(r, whole, {a, b}) == expected);
    }
  }
  // a run decided whole that ends inside the undecided tail: what follows it must wait, not be shown twice
  Redactor overlapping({"ABCDEFGHIJ-HIJQRSTUVWXYZ"});
  std::string text = "ABCDEFGHIJQR and more";
  for (size_t a = 0; a <= text.size(); ++a)
    for (size_t b = a; b <= text.size(); ++b) CHECK(streamed(overlapping, text, {a, b}) == overlapping.redact(text));
  std::vector<size_t> bytewise;
  std::string whole = "a " + kKey + " b " + kKey.substr(2, 9);
  for (size_t i = 1; i < whole.size(); ++i) bytewise.push_back(i);
  CHECK(streamed(r, whole, bytewise) == "a *** b ***");
}

TEST_CASE("redact: a stream holds back only what may start a piece of the key", "[core][redact]") {
  Redactor r({kKey});
  std::string shown;
  std::string text = "Final Answer: 42";
  size_t done = r.redact_stream(text, 0, text.size(), false, shown);
  CHECK(shown == "Final Answer: 4");  // "2" occurs in the key; it waits for the next piece
  CHECK(done == text.size() - 1);
  Redactor none;
  shown.clear();
  CHECK(none.redact_stream(text, 0, text.size(), false, shown) == text.size());
  CHECK(shown == text);
}
