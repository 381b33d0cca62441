// The answer of a ReAct run passed on piece by piece while the model writes it: never the Thought before it, never
// what could still become an action, and always a prefix of the answer the parser reads so far.
#include <catch2/catch.hpp>

#include "engine/agent/answer_watch.h"
#include "engine/parse/react_parser.h"
#include "engine/spec/default_react.h"
#include "support/test_support.h"

using namespace engine;

namespace {

struct Collected : EventSink {
  std::vector<std::string> answer_pieces;
  size_t received = 0;
  void receive(const Event& event, const EventPlace&) override {
    ++received;
    if (const auto* token = event.as<events::AnswerToken>()) answer_pieces.push_back(token->text);
  }
};

parse::ReactParser default_react_parser() {
  return parse::ReactParser(parse::ReactPatterns{spec::kDefaultFinalAnswerRegex, spec::kDefaultActionRegex});
}

void stream_call(EventSink& sink, const std::vector<std::string>& tokens, std::string_view step = "") {
  EventPlace place{"run", step};
  sink.receive(test::event(EventType::LlmStart, Value::object()), place);
  for (const auto& t : tokens) sink.receive(test::event(EventType::LlmToken, Value{{"text", t}}), place);
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string all;
  for (const auto& p : pieces) all += p;
  return all;
}

}  // namespace

TEST_CASE("answer watch: the answer's pieces follow the final-answer marker, token by token", "[agent][stream]") {
  Collected out;
  auto parser = default_react_parser();
  agent::AnswerWatch watch(out, parser);
  stream_call(watch, {"Thought:", " I", " know.", "\nFinal", " Answer:", " The", " capital", " is", " Paris."});
  CHECK(out.answer_pieces.size() >= 3);
  CHECK(joined(out.answer_pieces) == "The capital is Paris.");
  CHECK(out.received == 10 + out.answer_pieces.size());  // every event passes on too
}

TEST_CASE("answer watch: text that may become an action is held, and a new call keeps what went out",
          "[agent][stream]") {
  Collected out;
  auto parser = default_react_parser();
  agent::AnswerWatch watch(out, parser);
  stream_call(watch, {"Final Answer: maybe", "\nAction:", " echo", "\nAction Input:", " x"});
  CHECK(joined(out.answer_pieces) == "maybe");
  // The next call (after the parse error) answers otherwise: nothing more goes out, since "maybe" cannot be undone.
  stream_call(watch, {"Final Answer:", " certainly"});
  CHECK(joined(out.answer_pieces) == "maybe");
  // One that goes on from what went out continues it.
  stream_call(watch, {"Final Answer: maybe", " so"});
  CHECK(joined(out.answer_pieces) == "maybe so");
}

TEST_CASE("answer watch: a retried attempt starts over and a sub-workflow's answer is not the run's",
          "[agent][stream]") {
  Collected out;
  auto parser = default_react_parser();
  agent::AnswerWatch watch(out, parser);
  stream_call(watch, {"Final Answer: from a tool's workflow"}, "researcher");
  CHECK(out.answer_pieces.empty());
  stream_call(watch, {"Thought: hmm\nFinal"});
  watch.receive(test::event(EventType::LlmRetry, Value::object()), EventPlace{"run", ""});
  for (std::string t : {" Answer: not", " this"}) watch.receive(test::event(EventType::LlmToken, Value{{"text", t}}), {"run", ""});
  CHECK(out.answer_pieces.empty());  // " Answer: not this" alone holds no marker
}

namespace {

// The default ReAct parser, counting the bytes it is asked to read.
struct CountingParser : parse::OutputParser {
  parse::ReactParser inner = default_react_parser();
  mutable size_t bytes_read = 0;
  parse::ParsedOutput parse(std::string_view text) const override { return inner.parse(text); }
  std::optional<std::string> answer_so_far(std::string_view text) const override {
    bytes_read += text.size();
    return inner.answer_so_far(text);
  }
};

}  // namespace

TEST_CASE("answer watch: a long answer is read a few times over, not once per token, and goes out whole",
          "[agent][stream]") {
  Collected out;
  CountingParser parser;
  agent::AnswerWatch watch(out, parser);
  std::vector<std::string> tokens{"Thought: long.\nFinal Answer:"};
  std::string answer;
  for (int i = 0; i < 200000; ++i) {
    tokens.push_back(" w" + std::to_string(i % 100));
    answer += tokens.back();
  }
  stream_call(watch, tokens);
  watch.receive(test::event(EventType::LlmEnd, Value::object()), EventPlace{"run", ""});
  CHECK(joined(out.answer_pieces) == answer.substr(1));
  size_t text_size = tokens.front().size() + answer.size();
  INFO("read " << parser.bytes_read << " bytes of a text of " << text_size);
  // Every token read whole until 8 KiB (under 8 MB in all), then a sixteenth's growth at a time: at most some
  // twenty passes over the text (reading it at each of the 200,000 tokens would be over 10^11 bytes).
  CHECK(parser.bytes_read < 8192 * 8192 / 2 + 20 * text_size);
}
