#pragma once
// What an output parser makes of an LLM's text, in LangChain's vocabulary.
#include <string>
#include <variant>

#include "engine/core/value.h"

namespace engine::parse {

struct AgentAction {
  std::string tool;
  Value tool_input;  // text (a string) for a tool of one text input, else an object of arguments
  std::string log;  // the LLM text that produced the action; the scratchpad replays it
  std::string tool_call_id;  // the model's id for a native tool call (LangChain's ToolAgentAction); empty for text
};

struct AgentFinish {
  std::string output;
  std::string log;
};

struct ParseFailure {
  std::string message;    // why the text is not a valid step; sent back to the LLM on retry
  bool verbatim = false;  // the parser's own words for the model (a Lua parser's `retry`): nothing is added
};

using ParsedOutput = std::variant<AgentAction, AgentFinish, ParseFailure>;

}  // namespace engine::parse
