#pragma once
// A parser written as code (in Lua, bridged by assemble/): LangChain users' escape hatch of a custom parser class.
// The script reads the text and returns a table saying what it found:
//   {tool = "search", input = "..."}  an action (input a string or a table of arguments; default "")
//   {output = "..."}                  a final answer (a table is kept as JSON text)
//   nil                               no verdict: the next parser of a chain tries
// or raises an error, whose message goes back to the model as a parse failure.
#include <functional>
#include <string>

#include "engine/parse/output_parser.h"

namespace engine::parse {

class ScriptParser : public OutputParser {
 public:
  // `script` calls the code with the text; it throws Error when the code fails. `name` names the parser in
  // failures ("plugins/parse.lua").
  using Script = std::function<Value(std::string_view text)>;
  ScriptParser(std::string name, Script script) : name_(std::move(name)), script_(std::move(script)) {}

  ParsedOutput parse(std::string_view text) const override;

 private:
  std::string name_;
  Script script_;
};

}  // namespace engine::parse
