#pragma once
// What the executor needs of an agent, whatever its kind (ReAct text or native tool calls). An agent is immutable
// once built; each run() keeps its own state, so runs may share it across threads.
#include <string>

#include "engine/agent/run_core.h"
#include "engine/agent/run_result.h"
#include "engine/core/event.h"
#include "engine/parse/output_parser.h"

namespace engine::agent {

class Agent {
 public:
  virtual ~Agent() = default;
  // `inputs` is an object of the run's inputs. Never throws for what the model or a tool does: failures are in the
  // result's `error`.
  virtual RunResult run(const Value& inputs, EventSink& events, const RunOptions& options = {}) const = 0;
  // The first prompt for these inputs, as `engine render` shows it.
  virtual std::string render_first_prompt(const Value& inputs) const = 0;
  // The parser of the model's text, for `engine parse`; null for an agent that reads tool calls instead.
  virtual const parse::OutputParser* text_parser() const { return nullptr; }
};

}  // namespace engine::agent
