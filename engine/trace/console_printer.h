#pragma once
// Shows a run as LangChain's verbose mode does ("> Entering new AgentExecutor chain...", the model's thoughts,
// observations, "> Finished chain."), coloured when asked: blue steps, green answer, red errors.
#include <ostream>

#include "engine/core/event.h"

namespace engine::trace {

class ConsolePrinter : public EventSink {
 public:
  ConsolePrinter(std::ostream& out, bool color) : out_(out), color_(color) {}
  void emit(const Event& event) override;

 private:
  void write(const std::string& text, const char* color);
  std::ostream& out_;
  bool color_;
  void write_log(const std::string& log, const char* color);

  bool streamed_ = false;     // the current answer's text is shown token by token...
  std::string streamed_text_;  // ...and this much of it has been: a step's log does not show it again
};

}  // namespace engine::trace
