#include "engine/parse/keyword_parser.h"

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::parse {

ParsedOutput KeywordParser::parse(std::string_view text) const {
  for (const auto& rule : rules_) {
    try {
      auto m = rule.match.search(text);
      if (!m) continue;
      Value input = rule.input ? rule.input(*m, text) : Value(std::string(*m->groups[0]));
      return AgentAction{rule.tool, std::move(input), std::string(text)};
    } catch (const Error& e) {
      return ParseFailure{"could not parse LLM output: the keyword rule for '" + rule.tool + "' failed: " + e.message()};
    }
  }
  return ParseFailure{"could not parse LLM output: no keyword rule matches: " + quote_excerpt(text, 200)};
}

}  // namespace engine::parse
