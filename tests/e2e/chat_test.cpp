// engine chat and sessions, as a user drives them: piped messages one per line, the window memory of the pirate
// example answering a follow-up, sessions resumed from their file by chat and by run, commands, and the failures a
// user meets (a torn file, a workflow that cannot tell the human's message).
#include <catch2/catch.hpp>

#include "engine/core/file.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

const std::string kPirateChat = "chat workflows/pirate_search.yaml --no-stream";
const std::string kCanada = "How many people live in canada as of 2023?\n";
const std::string kFollowUp = "how about in mexico?\n";
// Only the history can turn the follow-up into this search.
const std::string kUnderstood = "Action Input: how many people live in mexico as of 2023";

size_t occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("chat: piped messages, one per line, the answers on stdout and the steps on stderr", "[e2e][chat]") {
  auto r = run_engine(kPirateChat, kCanada + "\n" + kFollowUp);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        "Arrr, me hearty! The spyglass says: Canada's population was about 38,781,291 as of 2023 (Statistics Canada). Arg!\n"
        "Arrr, me hearty! The spyglass says: Mexico's population was about 128.5 million in 2023 (World Bank). Arg!\n");
  CHECK(occurrences(r.err, "> Entering new AgentExecutor chain...") == 2);
  CHECK(r.err.find(kUnderstood) != std::string::npos);  // the window memory carried the first question
  auto fresh = run_engine(kPirateChat, kFollowUp);
  CHECK(fresh.err.find(kUnderstood) == std::string::npos);  // without it, the follow-up means nothing
  CHECK(fresh.err.find("Action Input: how about in mexico?") != std::string::npos);
}

TEST_CASE("chat: a window of 2 exchanges forgets the third one back", "[e2e][chat][memory]") {
  auto r = run_engine(kPirateChat, kCanada + "What is the capital of france?\nAny weather news?\n" + kFollowUp);
  REQUIRE(r.exit_code == 0);
  CHECK(occurrences(r.out, "\n") == 4);
  CHECK(r.err.find(kUnderstood) == std::string::npos);
  auto near = run_engine(kPirateChat, kCanada + "What is the capital of france?\n" + kFollowUp);
  CHECK(near.err.find(kUnderstood) != std::string::npos);
}

TEST_CASE("sessions: chat writes each turn to the file, run and chat resume it", "[e2e][chat][session]") {
  test::TempDir dir;
  std::string file = shell_quote((dir.path() / "pirate.jsonl").string());
  auto first = run_engine(kPirateChat + " -q --session " + file, kCanada);
  REQUIRE(first.exit_code == 0);
  std::string saved = read_file(dir.path() / "pirate.jsonl");
  CHECK(occurrences(saved, "\n") == 1);
  CHECK(Value::parse(saved)["input"] == "How many people live in canada as of 2023?");
  // A script plays one turn with engine run; the history is the file's.
  auto turn = run_engine("run workflows/pirate_search.yaml --no-stream --session " + file + " --input " +
                         shell_quote("how about in mexico?"));
  REQUIRE(turn.exit_code == 0);
  CHECK(turn.err.find(kUnderstood) != std::string::npos);
  CHECK(turn.out.find("128.5 million") != std::string::npos);
  auto resumed = run_engine(kPirateChat + " -q --session " + file, "/history\n");
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("resumed 2 exchanges from ") != std::string::npos);
  CHECK(resumed.out == "Human: How many people live in canada as of 2023?\n"
        "AI: Arrr, me hearty! The spyglass says: Canada's population was about 38,781,291 as of 2023 (Statistics Canada). Arg!\n"
        "Human: how about in mexico?\n"
        "AI: Arrr, me hearty! The spyglass says: Mexico's population was about 128.5 million in 2023 (World Bank). Arg!\n");
  CHECK(resumed.out.find("Human: how about in mexico?\nAI: Arrr, me hearty! The spyglass says: Mexico's") !=
        std::string::npos);
}

TEST_CASE("sessions: a torn file is refused with its place, and nothing in it is lost", "[e2e][chat][session][hostile]") {
  test::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  std::string file = shell_quote(path.string());
  REQUIRE(run_engine(kPirateChat + " -q --session " + file, kCanada + kFollowUp).exit_code == 0);
  std::string whole = read_file(path);
  std::filesystem::resize_file(path, whole.size() - 20);  // killed while writing the second turn
  std::string torn = read_file(path);
  auto chat = run_engine(kPirateChat + " -q --session " + file, kFollowUp);
  CHECK(chat.exit_code == 2);
  CHECK(chat.err == "engine: error[session.torn]: " + path.string() + ":2:1: the session's last line is cut short (was the process "
                    "stopped while writing it?); the 1 lines before it are whole: remove line 2 to resume from them\n");
  CHECK(chat.out.empty());
  auto run = run_engine("run workflows/pirate_search.yaml -q --session " + file + " --input x");
  CHECK(run.exit_code == 2);
  CHECK(read_file(path) == torn);
}

TEST_CASE("chat commands: /reset forgets, /save copies, unknown ones are named, /exit ends", "[e2e][chat]") {
  test::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  std::string copy = (dir.path() / "copy.jsonl").string();
  auto r = run_engine(kPirateChat + " --session " + shell_quote(path.string()),
                      kCanada + "/save " + copy + "\n/save " + copy + "\n/reset\n/hist\n" + kFollowUp + "/exit\n" + kCanada);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("saved 1 exchanges to " + copy + "; resume them with --session " + copy) != std::string::npos);
  CHECK(r.err.find("engine: error[io.exists]: '" + copy + "' exists; give a new file name") != std::string::npos);
  CHECK(r.err.find("the conversation starts again (its file keeps what was said)") != std::string::npos);
  CHECK(r.err.find("unknown command '/hist'; the commands are /reset, /history, /save FILE, /exit") != std::string::npos);
  CHECK(r.err.find(kUnderstood) == std::string::npos);  // the reset forgot canada
  CHECK(occurrences(r.out, "\n") == 2);  // /exit ended it before the last message
  CHECK(occurrences(read_file(path), "\"type\":\"reset\"") == 1);
  CHECK(occurrences(read_file(copy), "\n") == 1);
}

TEST_CASE("chat: a failed turn is reported and the chat goes on, and a workflow must say which input is the message",
          "[e2e][chat]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n"
                               "      - {match: 'fail', reply: 'no format here'}\n"
                               "      - {match: '(?s).*', reply: 'Final Answer: ok'}\n"
                               "agent:\n  prompt: '{{ input }}'\n");
  auto r = run_engine("chat -q " + shell_quote(w.string()), "please fail\nhello\n");
  CHECK(r.exit_code == 1);
  CHECK(r.out == "ok\n");
  CHECK(r.err.find("engine: error[parse.failed]: could not parse LLM output") != std::string::npos);
  auto two = dir.write("two.yaml", "inputs:\n  a: x\n  b: y\nllm:\n  provider: scripted\n  scripted:\n    replies: [x]\n"
                                   "agent:\n  prompt: '{{ a }}{{ b }}'\n");
  auto usage = run_engine("chat " + shell_quote(two.string()), "hi\n");
  CHECK(usage.exit_code == 2);
  CHECK(usage.err == "engine: error[usage]: a chat needs to know which input holds the human's message, and this workflow has "
                     "the inputs a, b: declare an input named 'input', or set agent.memory.input_key\n");
}

TEST_CASE("chat on a terminal: libedit reads the lines, with a prompt", "[e2e][chat]") {
  // script(1) gives the engine a terminal; the messages are typed into it.
  auto r = test::run_command("script -qec " + shell_quote(std::string(ENGINE_BIN) + " " + kPirateChat + " -q") +
                                 " /dev/null",
                             kCanada + "/exit\n");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("chatting with pirate_search; /reset, /history, /save FILE, /exit") != std::string::npos);
  CHECK(r.out.find("> How many people live in canada as of 2023?") != std::string::npos);
  CHECK(r.out.find("Arrr, me hearty! The spyglass says: Canada's population") != std::string::npos);
}
