// Record and replay: a recorded run is served back by request content, keys never reach the file, and a request
// the file lacks fails with a diff against the closest recorded one.
#include <catch2/catch.hpp>

#include <fstream>

#include "engine/core/file.h"
#include "engine/llm/recording_llm.h"
#include "engine/llm/replay_llm.h"
#include "engine/llm/scripted_llm.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::llm;

namespace {

LlmRequest ask(const std::string& prompt) {
  LlmRequest r;
  r.prompt = prompt;
  r.stop = {"\nObservation:"};
  r.temperature = 0.0;
  return r;
}

std::shared_ptr<const LlmClient> scripted(std::vector<ScriptedReply> replies) {
  ScriptedScript s;
  s.replies = std::move(replies);
  return std::make_shared<ScriptedLlm>(std::move(s));
}

}  // namespace

TEST_CASE("a recording is replayed by request content, identical requests in recorded order", "[llm][replay]") {
  test::TempDir dir;
  std::string file = (dir.path() / "calls.jsonl").string();
  {
    RecordingLlm rec(scripted({"first", "second", "third"}), file, std::make_shared<SecretSet>());
    LlmRequest a = ask("Question: a"), b = ask("Question: b");
    rec.complete(a);
    b.call_index = 1;
    rec.complete(b);
    a.call_index = 2;
    rec.complete(a);
  }
  ReplayLlm replay(file);
  CHECK(replay.size() == 3);
  RunState run;
  auto in_run = [](const std::string& prompt, RunState& state) {
    LlmRequest r = ask(prompt);
    r.run_state = &state;
    return r;
  };
  CHECK(replay.complete(in_run("Question: b", run)).text == "second");
  CHECK(replay.complete(in_run("Question: a", run)).text == "first");
  CHECK(replay.complete(in_run("Question: a", run)).text == "third");
  CHECK(replay.complete(in_run("Question: a", run)).text == "third");  // past the last, the last again
  LlmResponse r = replay.complete(in_run("Question: b", run));
  CHECK(r.usage.completion_tokens > 0);
  CHECK(r.usage_estimated);

  // Another run starts from the first answers again, whatever ran before it; a call outside any run is a first.
  RunState next;
  CHECK(replay.complete(in_run("Question: a", next)).text == "first");
  CHECK(replay.complete(ask("Question: a")).text == "first");
  CHECK(replay.complete(ask("Question: a")).text == "first");
}

TEST_CASE("a recording never holds the API key, even where a prompt or answer quotes it", "[llm][replay]") {
  test::TempDir dir;
  std::string file = (dir.path() / "calls.jsonl").string();
  RecordingLlm rec(scripted({std::string("the key is ") + test::kTestKey}), file, test::secrets_of({test::kTestKey}));
  rec.complete(ask(std::string("echo ") + test::kTestKey));
  std::string text = read_file(file);
  CHECK(text.find(test::kTestKey) == std::string::npos);
  CHECK(text.find("echo ***") != std::string::npos);
  CHECK(text.find("the key is ***") != std::string::npos);
}

TEST_CASE("a request the recording lacks fails with a diff against the closest", "[llm][replay]") {
  test::TempDir dir;
  auto file = dir.write("calls.jsonl",
                        R"({"request": {"prompt": "Answer well.\nQuestion: What is 2+2?\nThought:", "stop": ["\nObservation:"]}, "response": {"text": "4"}})"
                        "\n\n"
                        R"({"request": {"prompt": "Something else entirely"}, "response": {"text": "x"}})"
                        "\n");
  ReplayLlm replay(file.string());
  LlmRequest r = ask("Answer well.\nQuestion: What is 3+3?\nThought:");
  std::string kind;
  std::string e = test::error_of([&] { replay.complete(r); }, &kind);
  CHECK(kind == "llm.replay_miss");
  CHECK(e == "replay: call 1 sends a request that " + file.string() +
                 " does not hold (2 recorded); against the closest, on line 1 (- recorded, + sent):\n"
                 "  prompt| Answer well.\n"
                 "- prompt| Question: What is 2+2?\n"
                 "+ prompt| Question: What is 3+3?\n"
                 "  prompt| Thought:\n"
                 "  stop: [\"\\nObservation:\"]\n"
                 "+ temperature: 0.0");
}

TEST_CASE("a malformed recording names its line", "[llm][replay]") {
  test::TempDir dir;
  auto check = [&](const std::string& content, const std::string& expected) {
    auto file = dir.write("bad.jsonl", content);
    CHECK(test::error_of([&] { ReplayLlm r(file.string()); }) == file.string() + expected);
  };
  check("{\"request\": {}, \"response\": {\"text\": \"x\"}}\nnot json\n", ":2:1: a recording line must be a JSON object (parse error at line 1, column 2: syntax error while parsing "
        "value - invalid literal)");
  check("{\"response\": {\"text\": \"x\"}}\n", ":1:1: a recording line needs a 'request' object");
  check("{\"request\": {}, \"response\": {\"text\": 3}}\n", ":1:1: a recorded response needs a string 'text'");
  auto empty = dir.write("empty.jsonl", "\n");
  CHECK(test::error_of([&] { ReplayLlm r(empty.string()); }) == "the recording '" + empty.string() + "' holds no requests");
  CHECK(test::error_of([&] { ReplayLlm r((dir.path() / "none.jsonl").string()); }) ==
        "cannot read the recording '" + (dir.path() / "none.jsonl").string() + "'");
}
