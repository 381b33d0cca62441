#pragma once
// The ReAct output parser: a final-answer regex and an action regex, as LangChain's ReAct parsers.
#include "engine/parse/agent_output.h"
#include "engine/parse/output_parser.h"
#include "engine/parse/regex.h"

namespace engine::parse {

struct ReactPatterns {
  std::string final_answer;  // a group named `output` (or the first group) is the answer
  std::string action;        // groups named `tool` and `input` (or the first two groups)
  bool dotall = true;        // LangChain compiles its ReAct regexes with re.DOTALL
  bool strip_quotes = true;  // LangChain strips spaces and double quotes around the tool input
  BothVerdicts both = BothVerdicts::Error;
  bool decode_xml_entities = false;  // &lt; &amp; ... in what is captured, as LangChain's XML agent unescapes them
};

class ReactParser : public OutputParser {
 public:
  // Throws Error "regex.missing_group" when the action regex cannot yield a tool name and an input.
  ReactParser(Regex final_answer, Regex action, bool strip_quotes = true, BothVerdicts both = BothVerdicts::Error,
              bool decode_xml_entities = false);
  // Compiles the patterns too; a bad one throws Error "regex.invalid" whose message starts with its name.
  explicit ReactParser(const ReactPatterns& patterns);

  static RegexOptions regex_options(bool dotall) { return RegexOptions{.dotall = dotall}; }

  // Never throws for bad LLM output: a text that is not a step is a ParseFailure, as is a regex that gives up.
  ParsedOutput parse(std::string_view text) const override;
  // The regexes are pure, so a partial text is parsed as a whole one is. Not with XML entities decoded: a
  // half-written entity would decode differently once whole.
  std::optional<std::string> answer_so_far(std::string_view text) const override;

 private:
  Regex final_answer_;
  Regex action_;
  bool strip_quotes_;
  BothVerdicts both_;
  bool decode_xml_entities_;
};

}  // namespace engine::parse
