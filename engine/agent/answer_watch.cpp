#include "engine/agent/answer_watch.h"

namespace engine::agent {

void AnswerWatch::receive(const Event& event, const EventPlace& place) {
  // Only the agent's own calls: a workflow used as a tool has its own answer, under the tool's name.
  if (!place.step.empty()) return inner_.receive(event, place);
  switch (event.type()) {
    case EventType::LlmStart:
    case EventType::LlmRetry:  // a new call, or an attempt that starts over
      text_.clear();
      parsed_ = 0;
      break;
    case EventType::LlmToken:
      inner_.receive(event, place);
      text_ += event.as<events::LlmToken>()->text;
      if (text_.size() <= kParseEveryToken || text_.size() - parsed_ >= text_.size() / 16) pass_on(place);
      return;
    case EventType::LlmEnd:
      if (parsed_ < text_.size()) pass_on(place);  // the answer's last piece before the call's end
      break;
    default: break;
  }
  inner_.receive(event, place);
}

void AnswerWatch::pass_on(const EventPlace& place) {
  parsed_ = text_.size();
  std::optional<std::string> answer = parser_.answer_so_far(text_);
  if (!answer || answer->size() <= passed_.size() || answer->compare(0, passed_.size(), passed_) != 0) return;
  std::string piece = answer->substr(passed_.size());
  passed_ = std::move(*answer);
  inner_.receive(Event{events::AnswerToken{std::move(piece)}}, place);
}

}  // namespace engine::agent
