#pragma once
// A parser written as code (in Lua, bridged by assemble/): LangChain users' escape hatch of a custom parser class.
// The script reads the text (and, second, the list of why the parsers before it in a chain found no step) and
// returns a table saying what it found:
//   {tool = "search", input = "..."}  an action (input a string or a table of arguments; default "")
//   {output = "..."}                  a final answer (a table is kept as JSON text)
//   {retry = "..."}                   no step: these words alone go back to the model, and the chain ends
//   nil                               no verdict: the next parser of a chain tries
// or raises an error, whose message goes back to the model as a parse failure.
#include <functional>
#include <string>
#include <vector>

#include "engine/parse/output_parser.h"

namespace engine::parse {

class ScriptParser : public OutputParser {
 public:
  // `script` calls the code with the text and the earlier failures, its log lines going to `log`; it throws Error
  // when the code fails. `name` names the parser in failures and logs ("plugins/parse.lua").
  using LogLine = std::function<void(const std::string& line)>;
  using Script =
      std::function<Value(std::string_view text, const std::vector<std::string>& earlier_failures, const LogLine& log)>;
  ScriptParser(std::string name, Script script) : name_(std::move(name)), script_(std::move(script)) {}

  ParsedOutput parse(std::string_view text) const override { return parse_with(text, {}); }
  ParsedOutput parse_with(std::string_view text, const ParseContext& context) const override;

 private:
  std::string name_;
  Script script_;
};

}  // namespace engine::parse
