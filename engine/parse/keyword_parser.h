#pragma once
// Keyword rules: the fallback when a model forgets the format it was asked for. The first rule whose regex is found
// in the text names the tool to call; the rule's input is made from the match.
#include <functional>
#include <string>
#include <vector>

#include "engine/parse/output_parser.h"
#include "engine/parse/regex.h"

namespace engine::parse {

struct KeywordRule {
  Regex match;
  std::string tool;
  // The tool's input from the match and the whole text; null gives the whole match. May throw Error (a template
  // that fails), which makes the verdict a ParseFailure.
  std::function<Value(const RegexMatch& match, std::string_view text)> input;
};

class KeywordParser : public OutputParser {
 public:
  explicit KeywordParser(std::vector<KeywordRule> rules) : rules_(std::move(rules)) {}
  ParsedOutput parse(std::string_view text) const override;

 private:
  std::vector<KeywordRule> rules_;
};

}  // namespace engine::parse
