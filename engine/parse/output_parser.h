#pragma once
// What reads a model's text into a step: the ReAct regexes, a JSON blob, or a chain of parsers tried in order.
// Immutable once built and shared by every run.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/parse/agent_output.h"

namespace engine::parse {

// Where a parser's own log lines go (a Lua parser's engine.log and print): the parser's name and the line.
using ParserLog = std::function<void(std::string_view parser, std::string_view line)>;

// What a parser is told beside the text; only parsers written as code use it.
struct ParseContext {
  std::vector<std::string> earlier_failures;  // in a chain, why each parser before this one found no step
  ParserLog log;                              // empty: lines are dropped
};

class OutputParser {
 public:
  virtual ~OutputParser() = default;
  // Never throws for bad model output: a text that is not a step is a ParseFailure.
  virtual ParsedOutput parse(std::string_view text) const = 0;
  // The same, with the context a run gives; a parser that needs none reads the text alone.
  virtual ParsedOutput parse_with(std::string_view text, const ParseContext& context) const {
    (void)context;
    return parse(text);
  }
  // The final answer a model's text holds so far, while the text is still arriving: for streaming the answer alone
  // (answer_token events). Null when the text is no final answer yet, and always for a parser that cannot tell
  // without running code or seeing the whole text (a script, a JSON blob).
  virtual std::optional<std::string> answer_so_far(std::string_view text) const {
    (void)text;
    return std::nullopt;
  }
};

// What a parser makes of a text that holds both a final answer and an action. Parsers differ: LangChain's ReAct
// parser refuses it (error), custom ones often let the answer win.
enum class BothVerdicts { Error, FinalAnswer, Action };

// Parsers tried in order until one gives a verdict (an action or a final answer); when none does, the failure of
// each, in order, goes back to the model. A failure a parser words for the model itself (`verbatim`) ends the
// chain and goes back alone.
class ParserChain : public OutputParser {
 public:
  explicit ParserChain(std::vector<std::unique_ptr<const OutputParser>> parsers) : parsers_(std::move(parsers)) {}
  ParsedOutput parse(std::string_view text) const override { return parse_with(text, {}); }
  ParsedOutput parse_with(std::string_view text, const ParseContext& context) const override;
  // A chain of one parser answers as that parser; a longer chain's verdict depends on parsers it may not run early.
  std::optional<std::string> answer_so_far(std::string_view text) const override {
    return parsers_.size() == 1 ? parsers_.front()->answer_so_far(text) : std::nullopt;
  }

 private:
  std::vector<std::unique_ptr<const OutputParser>> parsers_;
};

}  // namespace engine::parse
