#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/error.h"
#include "engine/parse/regex.h"

using engine::Error;
using engine::parse::Regex;
using engine::parse::RegexOptions;

TEST_CASE("Python regex syntax is accepted", "[parse][regex]") {
  auto r = Regex::compile(R"((?s)Action: (?P<tool>\w+)\nInput: (?P<input>.*)\Z)");
  auto m = r.search("Action: calc\nInput: 1 +\n2");
  REQUIRE(m);
  CHECK(*m->group("tool") == "calc");
  CHECK(*m->group("input") == "1 +\n2");
  // \Z is an absolute end in Python, not "before a final newline".
  CHECK_FALSE(Regex::compile(R"(x\Z)").search("x\n"));
  CHECK(Regex::compile(R"((?P<a>x)(?P=a))").search("xx"));
}

TEST_CASE("word and digit classes are Unicode-aware, as in Python 3", "[parse][regex]") {
  auto m = Regex::compile(R"(行動:\s*(?P<tool>\w+)\[(?P<input>[^\]]*)\])").search("思考: …\n行動: 請求書[C]");
  REQUIRE(m);
  CHECK(*m->group("tool") == "請求書");
  CHECK(*m->group("input") == "C");
}

TEST_CASE("an invalid regex names the offset", "[parse][regex]") {
  try {
    Regex::compile("Action: (?P<tool>\\w+");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == engine::ErrorKind::RegexInvalid);
    CHECK(e.message() == "invalid regex: missing closing parenthesis at offset 20");
  }
}

TEST_CASE("catastrophic backtracking stops at the match limit", "[parse][regex]") {
  auto r = Regex::compile("(a+)+$");
  std::string evil(40, 'a');
  evil += 'b';
  try {
    r.search(evil);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == engine::ErrorKind::RegexLimit);
    CHECK(e.message() == "regex gave up on a 41-byte text: match limit exceeded (the pattern backtracks too much)");
  }
}

TEST_CASE("invalid UTF-8 in the subject is searched, not fatal", "[parse][regex]") {
  std::string text = "Final Answer: ok \xff\xfe tail";
  auto m = Regex::compile("Final Answer: (\\w+)").search(text);
  REQUIRE(m);
  CHECK(*m->groups[1] == "ok");
}

TEST_CASE("a long subject with a lazy DOTALL group still matches", "[parse][regex]") {
  std::string text = "Action: a\nAction Input: " + std::string(1 << 20, 'x');
  auto m = Regex::compile(R"(Action\s*:(.*?)\nAction\s*Input\s*:[\s]*(.*))", RegexOptions{.dotall = true}).search(text);
  REQUIRE(m);
  CHECK(m->groups[2]->size() == (1u << 20));
}

TEST_CASE("an alternation repeated over a long text matches within the JIT's own stack, on any thread",
          "[parse][regex]") {
  // Each repetition pushes a backtracking frame: 3000 of them overflowed pcre2's default 32 KB JIT stack, and the
  // interpreter it fell back to stopped at the depth limit, so the search gave up ("regex.limit").
  auto r = Regex::compile("^(?:(a)|b)*$");
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "ab";
  auto m = r.search(text);
  REQUIRE(m);
  CHECK(m->end == text.size());
  // Threads at once each use a stack of their own.
  std::atomic<int> matched{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (auto found = r.search(text); found && found->end == text.size()) ++matched;
    });
  for (auto& t : threads) t.join();
  CHECK(matched == 80);
}
