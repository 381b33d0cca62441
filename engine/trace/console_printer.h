#pragma once
// Shows a run as LangChain's verbose mode does ("> Entering new AgentExecutor chain...", the model's thoughts,
// observations, "> Finished chain."), coloured when asked as LangChain colours it: the model's text green, each
// tool's observations in that tool's colour (blue, yellow, pink, in the order of `tool_names`, then again), failed
// calls red. A run that fails ends without "> Finished chain."; its error is for the caller to print, once.
#include <ostream>
#include <string>
#include <vector>

#include "engine/core/event.h"

namespace engine::trace {

class ConsolePrinter : public EventSink {
 public:
  ConsolePrinter(std::ostream& out, bool color, std::vector<std::string> tool_names = {})
      : out_(out), color_(color), tool_names_(std::move(tool_names)) {}
  void emit(const Event& event) override;
  EventDetail detail() const override { return EventDetail::Summary; }  // it shows no prompt and no inputs

 private:
  void write(const std::string& text, const char* color);
  void write_log(const std::string& log, const char* color);
  const char* tool_color(const std::string& tool) const;

  std::ostream& out_;
  bool color_;
  std::vector<std::string> tool_names_;

  bool streamed_ = false;     // the current answer's text is shown token by token...
  std::string streamed_text_;  // ...and this much of it has been: a step's log does not show it again
};

}  // namespace engine::trace
