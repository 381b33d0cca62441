#include "engine/parse/script_parser.h"

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::parse {

ParsedOutput ScriptParser::parse_with(std::string_view text, const ParseContext& context) const {
  std::string prefix = "could not parse LLM output: the parser " + name_;
  LogLine log;
  if (context.log) log = [&](const std::string& line) { context.log(name_, line); };
  Value verdict;
  try {
    verdict = script_(text, context.earlier_failures, log);
  } catch (const Error& e) {
    return ParseFailure{prefix + " failed: " + e.message()};
  }
  if (verdict.is_null()) return ParseFailure{prefix + " found no step in: " + quote_excerpt(text, 200)};
  if (!verdict.is_object())
    return ParseFailure{prefix + " returned " + std::string(verdict.type_name()) +
                        "; it must return {tool=, input=}, {output=}, {retry=} or nil"};
  int verdicts = verdict.contains("tool") + verdict.contains("output") + verdict.contains("retry");
  if (verdicts != 1)
    return ParseFailure{prefix + " returned a table with " + (verdicts ? "more than one of" : "none of") +
                        " 'tool', 'output' and 'retry'; give one"};
  if (verdict.contains("retry")) {
    const Value& retry = verdict["retry"];
    if (!retry.is_string() || retry.get_ref<const std::string&>().empty())
      return ParseFailure{prefix + " returned a 'retry' that is not text for the model"};
    return ParseFailure{retry.get<std::string>(), true};
  }
  bool has_output = verdict.contains("output");
  if (has_output) {
    const Value& output = verdict["output"];
    return AgentFinish{output.is_string() ? output.get<std::string>() : to_json_text(output), std::string(text)};
  }
  const Value& tool = verdict["tool"];
  if (!tool.is_string() || tool.get_ref<const std::string&>().empty())
    return ParseFailure{prefix + " returned a 'tool' that is not a tool's name"};
  Value input = verdict.contains("input") ? verdict["input"] : Value("");
  if (!input.is_string() && !input.is_object())
    return ParseFailure{prefix + " returned an 'input' that is " + std::string(input.type_name()) +
                        "; give text or a table of arguments"};
  return AgentAction{tool.get<std::string>(), std::move(input), std::string(text)};
}

}  // namespace engine::parse
