#pragma once
// The defaults a react agent gets when the workflow leaves them out: LangChain's ReAct prompt (hub
// "hwchase17/react"), its parser's regexes and the scratchpad of format_log_to_str.
#include <string>

namespace engine::spec {

inline const char* const kDefaultReactPrompt =
    "Answer the following questions as best you can. You have access to the following tools:\n"
    "\n"
    "{{ tool_descriptions }}\n"
    "\n"
    "Use the following format:\n"
    "\n"
    "Question: the input question you must answer\n"
    "Thought: you should always think about what to do\n"
    "Action: the action to take, should be one of [{{ tool_names }}]\n"
    "Action Input: the input to the action\n"
    "Observation: the result of the action\n"
    "... (this Thought/Action/Action Input/Observation can repeat N times)\n"
    "Thought: I now know the final answer\n"
    "Final Answer: the final answer to the original input question\n"
    "\n"
    "Begin!\n"
    "\n"
    "Question: {{ input }}\n"
    "Thought:{{ agent_scratchpad }}";

// LangChain's ReActSingleInputOutputParser patterns, with named groups.
inline const char* const kDefaultActionRegex =
    R"(Action\s*\d*\s*:[\s]*(?P<tool>.*?)[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(?P<input>.*))";
// The answer is the text after the last "Final Answer:", as LangChain Python's text.split("Final Answer:")[-1]: the
// leading (?s).* runs to the end of the text and gives back only as far as the last one.
inline const char* const kDefaultFinalAnswerRegex = R"((?s).*Final Answer:\s*(?P<output>.*))";

// format_log_to_str: each step's log, then the observation and the next thought prefix.
inline std::string default_scratchpad(const std::string& observation_prefix, const std::string& llm_prefix) {
  auto escape = [](const std::string& s) {  // the prefixes go inside a template string literal
    std::string out;
    for (char c : s) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  return "{% for step in intermediate_steps %}{{ step.action.log }}\n{{ '" + escape(observation_prefix) +
         "' }}{{ step.observation }}\n{{ '" + escape(llm_prefix) + "' }}{% endfor %}";
}

}  // namespace engine::spec
