#pragma once
// What an output parser makes of an LLM's text, in LangChain's vocabulary.
#include <string>
#include <variant>

namespace engine::parse {

struct AgentAction {
  std::string tool;
  std::string tool_input;
  std::string log;  // the LLM text that produced the action; the scratchpad replays it
};

struct AgentFinish {
  std::string output;
  std::string log;
};

struct ParseFailure {
  std::string message;  // why the text is not a valid step; sent back to the LLM on retry
};

using ParsedOutput = std::variant<AgentAction, AgentFinish, ParseFailure>;

}  // namespace engine::parse
