#include "engine/parse/json_blob_parser.h"

#include <vector>

#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::parse {
namespace {

// The JSON object starting at `open` ('{'), up to its balancing '}' (strings and escapes skipped), or "" when the
// text ends first. One pass over the text: a model's text cannot make it quadratic.
std::string_view balanced_object(std::string_view text, size_t open) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return text.substr(open, i - open + 1);
    }
  }
  return {};
}

// The candidates, in order, as LangChain's parse_json_markdown finds a blob: the whole text (trimmed of blanks and
// backticks); then, for each fence, the first balanced object after it (a fence inside a string of that object, as
// in an action input of "```sql ... ```", is part of the string, not the end of the block; no newline is needed
// after the opening fence); then the first balanced object anywhere.
std::vector<std::string_view> candidates(std::string_view text) {
  std::vector<std::string_view> out;
  size_t first = text.find_first_not_of(" \t\r\n`");
  size_t last = text.find_last_not_of(" \t\r\n`");
  if (first != std::string_view::npos) out.push_back(text.substr(first, last - first + 1));
  auto add_object_from = [&](size_t from) {
    size_t brace = text.find('{', from);
    if (brace == std::string_view::npos) return;
    for (std::string_view seen : out)
      if (seen.data() == text.data() + brace) return;  // that object is a candidate already
    if (auto blob = balanced_object(text, brace); !blob.empty()) out.push_back(blob);
  };
  size_t fences = 0;
  for (size_t fence = text.find("```"); fence != std::string_view::npos && fences < limits::kJsonFences;
       fence = text.find("```", fence + 3), ++fences)
    add_object_from(fence + 3);
  add_object_from(0);
  return out;
}

}  // namespace

ParsedOutput JsonBlobParser::parse(std::string_view text) const {
  std::string why = "no JSON blob in the text";
  std::vector<std::string_view> found = candidates(text);
  for (size_t i = 0; i < found.size(); ++i) {
    JsonError error;
    Value blob = parse_json(found[i], &error);
    if (blob.is_discarded()) {
      // The whole text not being JSON says nothing when it is prose around a blob; it does when it is a blob.
      bool prose = i == 0 && found[i].front() != '{';
      if (!prose) why = "the JSON blob is not valid JSON (" + error.message + ")";
      continue;
    }
    const Value& action = field(blob, options_.action_key.c_str());
    if (!action.is_string() || action.get<std::string>().empty()) {
      why = "the JSON blob has no \"" + options_.action_key + "\" string";
      continue;
    }
    const Value& input = field(blob, options_.input_key.c_str());
    if (action == options_.final_action)
      return AgentFinish{input.is_string() ? input.get<std::string>() : to_json_text(input), std::string(text)};
    return AgentAction{action.get<std::string>(), input.is_null() ? Value("") : input, std::string(text)};
  }
  return ParseFailure{"could not parse LLM output: " + why + " with an \"" + options_.action_key +
                      "\" key: " + quote_excerpt(text, 200)};
}

}  // namespace engine::parse
