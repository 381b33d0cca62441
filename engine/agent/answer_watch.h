#pragma once
// The final answer of a ReAct run as it arrives: a sink in front of the run's own that reads the model's text as it
// streams ("llm_token") and, once the agent's parser reads a final answer in it, passes on each new piece of that
// answer as an "answer_token" event. So a client of the run (a served chat completion) can stream the answer alone,
// never the Thought and Action text around it.
//
// What has been passed on is always a prefix of the answer the parser reads so far: a piece is passed on only when
// the answer grew at its end. The answer is speculative until the model's text is whole (a model that writes an
// action after its final answer has given none), so whoever shows the pieces checks them against the run's answer.
#include <algorithm>
#include <string>

#include "engine/core/event.h"
#include "engine/parse/output_parser.h"

namespace engine::agent {

class AnswerWatch : public EventSink {
 public:
  AnswerWatch(EventSink& inner, const parse::OutputParser& parser) : inner_(inner), parser_(parser) {}
  void receive(const Event& event, const EventPlace& place) override;
  EventDetail detail() const override { return std::max(inner_.detail(), EventDetail::Summary); }

 private:
  EventSink& inner_;
  const parse::OutputParser& parser_;
  // Reads the answer in text_ and passes on what it adds to passed_.
  void pass_on(const EventPlace& place);

  // Parsing the whole text again at each token would cost time quadratic in the answer's length (a 200,000-word
  // answer took minutes): past this many bytes the text is parsed again only once it has grown by a sixteenth, so
  // the parses add up to a few passes over the text, and a long answer goes out in pieces of that size. The model
  // call's end parses what is left.
  static constexpr size_t kParseEveryToken = 8192;
  std::string text_;    // the model call's text so far
  size_t parsed_ = 0;   // how much of text_ the last parse read
  std::string passed_;  // the answer passed on so far, over every call of the run
};

}  // namespace engine::agent
