// Chat sessions in files: appended a whole line per turn, resumed, reset, saved; torn and foreign files refused
// with their place, and nothing before the damage lost.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "engine/app/session.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;
using engine::app::Session;

namespace {

std::string session_error(const std::filesystem::path& file) {
  try {
    Session::open(file);
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a session file gets one whole JSON line per turn, and is resumed from them", "[app][session]") {
  test::TempDir dir;
  auto file = dir.path() / "chat.jsonl";
  {
    Session s = Session::open(file);
    CHECK(s.turns() == 0);
    s.add_turn("hi", "Hello!");
    s.add_turn("contact?", Value{{"name", "Ada"}});
    std::string text = read_file(file);
    CHECK(std::count(text.begin(), text.end(), '\n') == 2);
    CHECK(text.back() == '\n');
    CHECK(Value::parse(text.substr(0, text.find('\n')))["input"] == "hi");
  }
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // a conversation is private
  {
    Session resumed = Session::open(file);
    CHECK(resumed.turns() == 2);
    REQUIRE(resumed.exchanges().size() == 2);
    CHECK(resumed.exchanges()[0].output == "Hello!");
    CHECK(resumed.exchanges()[1].output == R"({"name":"Ada"})");  // a structured answer is remembered as its JSON
    resumed.add_turn("more", "ok");
  }
  CHECK(Session::open(file).exchanges().size() == 3);
}

// Two chats appending to one session would each lose the other's turns from their memory: the file is held by the
// one using it, and never opened through a symlink.
TEST_CASE("a session file in use is refused to a second chat, and a symlink is never followed", "[app][session][hostile]") {
  test::TempDir dir;
  auto file = dir.path() / "chat.jsonl";
  std::string kind;
  {
    Session first = Session::open(file);
    first.add_turn("hi", "Hello!");
    CHECK(test::error_of([&] { Session::open(file); }, &kind) ==
          "another engine process is using the session file '" + file.string() + "'; end it first, or give another file");
    CHECK(kind == "session.busy");
  }
  CHECK(Session::open(file).turns() == 1);
  auto victim = dir.write("victim.txt", "keep me\n");
  auto link = dir.path() / "linked.jsonl";
  std::filesystem::create_symlink(victim, link);
  CHECK(test::error_of([&] { Session::open(link); }) == "'" + link.string() + "' is a symbolic link; name the file it points to");
  CHECK(read_file(victim) == "keep me\n");
}

TEST_CASE("a reset starts the memory again and keeps the turns before it in the file", "[app][session]") {
  test::TempDir dir;
  auto file = dir.path() / "chat.jsonl";
  {
    Session s = Session::open(file);
    s.add_turn("one", "1");
    s.reset();
    CHECK(s.exchanges().empty());
    s.add_turn("two", "2");
  }
  Session resumed = Session::open(file);
  CHECK(resumed.turns() == 3);
  REQUIRE(resumed.exchanges().size() == 1);
  CHECK(resumed.exchanges()[0].input == "two");
  CHECK(read_file(file).find("\"input\":\"one\"") != std::string::npos);
}

TEST_CASE("a torn last line is refused where it is, and the turns before it are intact", "[app][session][hostile]") {
  test::TempDir dir;
  auto file = dir.path() / "chat.jsonl";
  {
    Session s = Session::open(file);
    s.add_turn("one", "1");
    s.add_turn("two", "2");
  }
  std::string whole = read_file(file);
  // A process killed mid-write leaves a line without its end.
  std::filesystem::resize_file(file, whole.size() - 9);
  std::string torn = read_file(file);
  CHECK(session_error(file) ==
        file.string() + ":2:1: the session's last line is cut short (was the process stopped while writing it?); the 1 "
        "lines before it are whole: remove line 2 to resume from them");
  CHECK(read_file(file) == torn);  // refusing it changed nothing
  std::filesystem::resize_file(file, whole.find('\n') + 1);
  CHECK(Session::open(file).exchanges().size() == 1);
}

TEST_CASE("lines that are not a session's are refused with their place", "[app][session][hostile]") {
  test::TempDir dir;
  CHECK(session_error(dir.write("a.jsonl", "{\"type\":\"turn\",\"input\":\"x\",\"output\":\"y\"}\n{\"type\": tur}\n")) ==
        (dir.path() / "a.jsonl").string() + ":2:11: not a session line: parse error at line 1, column 11: syntax "
        "error while parsing value - invalid literal");
  CHECK(session_error(dir.write("b.jsonl", "{\"type\":\"turn\",\"input\":3,\"output\":\"y\"}\n"))
            .find("b.jsonl:1:1: a turn needs a text 'input' and an 'output'") != std::string::npos);
  CHECK(session_error(dir.write("c.jsonl", "[1, 2]\n")).find("c.jsonl:1:1: not a session line: its type must be") !=
        std::string::npos);
  std::string deep(10000, '[');
  CHECK(session_error(dir.write("d.jsonl", deep + "\n")).find("d.jsonl:1:") != std::string::npos);
  CHECK(Session::open(dir.write("e.jsonl", "\n\n")).turns() == 0);  // blank lines are nothing
}

TEST_CASE("save_as writes the exchanges since the last reset, never over a file", "[app][session]") {
  test::TempDir dir;
  Session s;  // in memory: nothing written until saved
  s.add_turn("one", "1");
  s.reset();
  s.add_turn("two", Value{{"n", 2}});
  auto saved = dir.path() / "saved.jsonl";
  s.save_as(saved);
  Session back = Session::open(saved);
  REQUIRE(back.exchanges().size() == 1);
  CHECK(back.exchanges()[0].output == R"({"n":2})");
  try {
    s.save_as(saved);
    FAIL("saved over a file");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::IoExists);
  }
}

// LangChain's memory output_key: a structured answer's field is what the history holds, the file keeps it all.
TEST_CASE("a session with an output_key remembers that field of a structured answer, and the file keeps it whole",
          "[app][session]") {
  test::TempDir dir;
  auto file = dir.path() / "chat.jsonl";
  Value answer{{"answer", "Paris"}, {"confidence", 0.9}};
  {
    Session s = Session::open(file, "answer");
    s.add_turn("capital of France?", answer);
    s.add_turn("and 2+2?", "4");                                   // text stays text
    s.add_turn("a list?", Value{{"items", Value::array({1, 2})}});  // no such field: kept whole
    REQUIRE(s.exchanges().size() == 3);
    CHECK(s.exchanges()[0].output == "Paris");
    CHECK(s.exchanges()[1].output == "4");
    CHECK(s.exchanges()[2].output == R"({"items":[1,2]})");
  }
  CHECK(read_file(file).find(R"("output":{"answer":"Paris","confidence":0.9})") != std::string::npos);
  CHECK(Session::open(file, "answer").exchanges()[0].output == "Paris");  // resumed the same way
  CHECK(Session::open(file).exchanges()[0].output == R"({"answer":"Paris","confidence":0.9})");
  Session in_memory("answer");
  in_memory.add_turn("q", answer);
  CHECK(in_memory.exchanges()[0].output == "Paris");
}

// A session file is an output of the process: a key a turn quotes is masked in every line, and in a saved copy.
TEST_CASE("a session file and its saved copy mask the keys of the set given", "[app][session]") {
  test::TempDir dir;
  const std::string key = "sk-session-secret-0123456789";
  auto file = dir.path() / "chat.jsonl";
  Session s = Session::open(file, "", test::secrets_of({key}));
  s.add_turn("my key is " + key, "noted: " + key);
  std::string text = read_file(file);
  Value line = Value::parse(text.substr(0, text.find('\n')));
  CHECK(line["input"] == "my key is ***");
  CHECK(line["output"] == "noted: ***");
  s.save_as(dir.path() / "copy.jsonl");
  CHECK(read_file(dir.path() / "copy.jsonl") == "{\"type\":\"turn\",\"input\":\"my key is ***\",\"output\":\"noted: ***\"}\n");
}
