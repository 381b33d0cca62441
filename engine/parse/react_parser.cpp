#include "engine/parse/react_parser.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::parse {
namespace {

Regex compile_named(const std::string& pattern, const char* which, bool dotall) {
  try {
    return Regex::compile(pattern, ReactParser::regex_options(dotall));
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(which) + " " + e.message());
  }
}

std::string_view group_or(const RegexMatch& m, std::initializer_list<std::string_view> names, size_t index) {
  for (auto n : names)
    if (auto g = m.group(n)) return *g;
  if (index < m.groups.size() && m.groups[index]) return *m.groups[index];
  return {};
}

bool has_any_group(const Regex& r, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (r.has_group(n)) return true;
  return false;
}

std::vector<std::string> group_names_of(const Regex& r) {
  std::vector<std::string> out;
  for (const auto& name : r.group_names())
    if (!name.empty()) out.push_back(name);
  return out;
}

const std::initializer_list<std::string_view> kOutputNames = {"output", "answer", "final_answer"};
const std::initializer_list<std::string_view> kToolNames = {"tool", "action"};
const std::initializer_list<std::string_view> kInputNames = {"input", "tool_input", "action_input"};

}  // namespace

ReactParser::ReactParser(const ReactPatterns& p)
    : ReactParser(compile_named(p.final_answer, "final_answer", p.dotall), compile_named(p.action, "action", p.dotall),
                  p.strip_quotes, p.both, p.decode_xml_entities) {}

ReactParser::ReactParser(Regex final_answer, Regex action, bool strip_quotes, BothVerdicts both,
                         bool decode_xml_entities)
    : final_answer_(std::move(final_answer)), action_(std::move(action)), strip_quotes_(strip_quotes), both_(both),
      decode_xml_entities_(decode_xml_entities) {
  size_t groups = action_.group_names().size() - 1;
  bool named = has_any_group(action_, kToolNames) && has_any_group(action_, kInputNames);
  if (!named && groups < 2)
    throw Error(ErrorKind::RegexMissingGroup,
                "action regex needs groups named 'tool' and 'input' (or two groups), found " + std::to_string(groups));
  // A regex that names its groups must name the ones read: a misspelt name would fall back to group positions and
  // read the wrong text without a word.
  if (!named && !group_names_of(action_).empty())
    throw Error(ErrorKind::RegexMissingGroup, "action regex names its groups " + join(group_names_of(action_), ", ") +
                                           ", but the parser reads groups named 'tool' (or 'action') and 'input' "
                                           "(or 'tool_input', 'action_input')");
  if (!has_any_group(final_answer_, kOutputNames) && !group_names_of(final_answer_).empty())
    throw Error(ErrorKind::RegexMissingGroup, "final_answer regex names its groups " + join(group_names_of(final_answer_), ", ") +
                                           ", but the parser reads a group named 'output' (or 'answer', "
                                           "'final_answer')");
}

ParsedOutput ReactParser::parse(std::string_view text) const {
  std::optional<RegexMatch> action, finish;
  try {
    action = action_.search(text);
    finish = final_answer_.search(text);
  } catch (const Error& e) {
    return ParseFailure{"could not parse LLM output: " + e.message()};
  }
  if (action && finish) {
    if (both_ == BothVerdicts::Error)
      return ParseFailure{"could not parse LLM output: it has both a final answer and an action: " +
                          quote_excerpt(text, 200)};
    if (both_ == BothVerdicts::FinalAnswer) action.reset();
    else finish.reset();
  }
  if (action) {
    std::string tool(trim(group_or(*action, kToolNames, 1)));
    std::string_view input = group_or(*action, kInputNames, 2);
    input = trim(input);
    if (strip_quotes_) {
      // LangChain: tool_input.strip(" ").strip('"'), after the whitespace a model leaves before the stop sequence
      while (!input.empty() && input.front() == '"') input.remove_prefix(1);
      while (!input.empty() && input.back() == '"') input.remove_suffix(1);
      input = trim(input);
    }
    if (tool.empty()) return ParseFailure{"could not parse LLM output: the action names no tool"};
    if (decode_xml_entities_) return AgentAction{decode_xml_entities(tool), Value(decode_xml_entities(input)), std::string(text)};
    return AgentAction{tool, Value(std::string(input)), std::string(text)};
  }
  if (finish) {
    // A pattern without groups yields the whole match.
    std::string_view out = finish->groups.size() > 1 ? group_or(*finish, kOutputNames, 1) : *finish->groups[0];
    std::string answer(trim(out));
    return AgentFinish{decode_xml_entities_ ? decode_xml_entities(answer) : std::move(answer), std::string(text)};
  }
  return ParseFailure{"could not parse LLM output: it matches neither the final-answer nor the action pattern: " +
                      quote_excerpt(text, 200)};
}

std::optional<std::string> ReactParser::answer_so_far(std::string_view text) const {
  if (decode_xml_entities_) return std::nullopt;
  try {
    std::optional<RegexMatch> finish = final_answer_.search(text);
    if (!finish) return std::nullopt;
    // Text that may yet become an action is no answer yet: an action would win (or make the text a parse error),
    // so the answer stops where an action could start. With the answer set to win, an action never matters.
    std::optional<size_t> action = both_ == BothVerdicts::FinalAnswer ? std::nullopt : action_.match_or_partial_start(text);
    std::string_view out = finish->groups.size() > 1 ? group_or(*finish, kOutputNames, 1) : *finish->groups[0];
    if (out.data() == nullptr) return std::string();  // the answer's group took no part in the match
    size_t start = static_cast<size_t>(out.data() - text.data());
    size_t end = start + out.size();
    if (action) end = std::min(end, std::max(start, *action));
    return std::string(trim(text.substr(start, end - start)));
  } catch (const Error&) {
    return std::nullopt;  // a regex that gives up on a partial text says nothing yet; the whole text decides
  }
}

}  // namespace engine::parse
