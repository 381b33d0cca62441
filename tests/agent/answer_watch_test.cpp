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
    if (event.type == EventType::AnswerToken) answer_pieces.push_back(event.data["text"].get<std::string>());
  }
};

parse::ReactParser default_react_parser() {
  return parse::ReactParser(parse::ReactPatterns{spec::kDefaultFinalAnswerRegex, spec::kDefaultActionRegex});
}

void stream_call(EventSink& sink, const std::vector<std::string>& tokens, std::string_view step = "") {
  EventPlace place{"run", step};
  sink.receive(Event{EventType::LlmStart, Value::object()}, place);
  for (const auto& t : tokens) sink.receive(Event{EventType::LlmToken, Value{{"text", t}}}, place);
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
  watch.receive(Event{EventType::LlmRetry, Value::object()}, EventPlace{"run", ""});
  for (std::string t : {" Answer: not", " this"}) watch.receive(Event{EventType::LlmToken, Value{{"text", t}}}, {"run", ""});
  CHECK(out.answer_pieces.empty());  // " Answer: not this" alone holds no marker
}
