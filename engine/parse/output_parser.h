#pragma once
// What reads a model's text into a step: the ReAct regexes, a JSON blob, or a chain of parsers tried in order.
// Immutable once built and shared by every run.
#include <memory>
#include <string_view>
#include <vector>

#include "engine/parse/agent_output.h"

namespace engine::parse {

class OutputParser {
 public:
  virtual ~OutputParser() = default;
  // Never throws for bad model output: a text that is not a step is a ParseFailure.
  virtual ParsedOutput parse(std::string_view text) const = 0;
};

// What a parser makes of a text that holds both a final answer and an action. Parsers differ: LangChain's ReAct
// parser refuses it (error), custom ones often let the answer win.
enum class BothVerdicts { Error, FinalAnswer, Action };

// Parsers tried in order until one gives a verdict (an action or a final answer); when none does, the failure of
// each, in order, goes back to the model.
class ParserChain : public OutputParser {
 public:
  explicit ParserChain(std::vector<std::unique_ptr<const OutputParser>> parsers) : parsers_(std::move(parsers)) {}
  ParsedOutput parse(std::string_view text) const override;

 private:
  std::vector<std::unique_ptr<const OutputParser>> parsers_;
};

}  // namespace engine::parse
