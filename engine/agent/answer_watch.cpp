#include "engine/agent/answer_watch.h"

namespace engine::agent {

void AnswerWatch::receive(const Event& event, const EventPlace& place) {
  inner_.receive(event, place);
  // Only the agent's own calls: a workflow used as a tool has its own answer, under the tool's name.
  if (!place.step.empty()) return;
  switch (event.type) {
    case EventType::LlmStart:
    case EventType::LlmRetry: text_.clear(); return;  // a new call, or an attempt that starts over
    case EventType::LlmToken: break;
    default: return;
  }
  if (auto text = event.data.find("text"); text != event.data.end() && text->is_string())
    text_ += text->get_ref<const std::string&>();
  std::optional<std::string> answer = parser_.answer_so_far(text_);
  if (!answer || answer->size() <= passed_.size() || answer->compare(0, passed_.size(), passed_) != 0) return;
  std::string piece = answer->substr(passed_.size());
  passed_ = std::move(*answer);
  inner_.receive(Event{EventType::AnswerToken, Value{{"text", std::move(piece)}}}, place);
}

}  // namespace engine::agent
