#include "engine/app/chat_turn.h"

#include "engine/app/inputs.h"

namespace engine::app {

agent::RunResult run_chat_turn(const workflow::Executor& executor, Session& session, Value given,
                               const std::string& message, EventSink& events, agent::RunOptions options) {
  require_chat_input(executor);
  given[executor.chat_input()] = message;
  return run_chat_turn(executor, session, std::move(given), events, options);
}

agent::RunResult run_chat_turn(const workflow::Executor& executor, Session& session, Value given, EventSink& events,
                               agent::RunOptions options) {
  require_chat_input(executor);
  Value inputs = executor.resolve_inputs(std::move(given));
  options.history = session.exchanges();
  agent::RunResult result = executor.run(inputs, events, options);
  if (result.ok()) session.add_turn(chat_message(executor, inputs), result.output);
  return result;
}

}  // namespace engine::app
