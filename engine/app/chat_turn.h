#pragma once
// One turn of a chat, as every front end plays it (engine chat, engine run --session, a server's chat completion):
// the human's message placed in the workflow's chat input, the session's exchanges as the agent's memory, and the
// turn added to the session when the run answers. A failed turn is not an exchange: the session goes on without it.
#include <string>

#include "engine/agent/run_result.h"
#include "engine/app/session.h"
#include "engine/core/event.h"
#include "engine/workflow/executor.h"

namespace engine::app {

// `given` holds the other inputs (checked here with the message in place); `options.history` is set from the
// session. Throws Error "usage" when the workflow has no chat input, "input.*" for inputs that do not fit.
agent::RunResult run_chat_turn(const workflow::Executor& executor, Session& session, Value given,
                               const std::string& message, EventSink& events, agent::RunOptions options = {});

// The same for inputs that already hold the message (engine run --session --input ...).
agent::RunResult run_chat_turn(const workflow::Executor& executor, Session& session, Value given, EventSink& events,
                               agent::RunOptions options = {});

}  // namespace engine::app
