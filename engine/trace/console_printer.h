#pragma once
// Shows a run as LangChain's verbose mode does ("> Entering new AgentExecutor chain...", the model's thoughts,
// observations, "> Finished chain."), coloured when asked as LangChain colours it: the model's text green, each
// tool's observations in that tool's colour (blue, yellow, pink, in the order of `tool_names`, then again), failed
// calls red. A run that fails ends without "> Finished chain."; its error is for the caller to print, once.
// A workflow's steps show as they start and end, with their time; what happens inside a step (an agent's chain,
// a sub-workflow's steps) is indented under it. Steps on several threads may show at once: each event is shown
// whole, and each chain's streamed text is tracked on its own.
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/event.h"

namespace engine::trace {

class ConsolePrinter : public EventSink {
 public:
  ConsolePrinter(std::ostream& out, bool color, std::vector<std::string> tool_names = {})
      : out_(out), color_(color), tool_names_(std::move(tool_names)) {}
  void receive(const Event& event, const EventPlace& place) override;
  EventDetail detail() const override { return EventDetail::Summary; }  // it shows no prompt and no inputs

 private:
  // What the printer keeps of one chain (the run's own, or a step's): how its agent writes observations (from its
  // chain_start), and how much of its current answer was streamed.
  struct Chain {
    std::string observation_prefix;
    std::string llm_prefix;
    bool streamed = false;      // the current answer's text is shown token by token...
    std::string streamed_text;  // ...and this much of it has been: a step's log does not show it again
  };

  void show(const Event& e, Chain& chain);
  void write(std::string_view text, const char* color);
  void newline();
  void write_log(Chain& chain, const std::string& log, const char* color);
  const char* tool_color(const std::string& tool) const;

  std::ostream& out_;
  bool color_;
  std::vector<std::string> tool_names_;

  std::mutex mutex_;  // guards everything below
  std::map<std::string, Chain, std::less<>> chains_;  // by the path of the step they belong to
  std::string indent_;  // the current event's
  std::string showing_;  // the current event's step path
  // Whose text the last line, left unfinished, holds: another chain's text starts on a line of its own.
  std::string line_owner_;
  bool at_line_start_ = true;
};

}  // namespace engine::trace
