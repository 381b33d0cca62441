#include "engine/parse/json_blob_parser.h"

#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
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

// The candidates, in order: each fenced block's text, else the first object in the text.
std::vector<std::string_view> candidates(std::string_view text) {
  std::vector<std::string_view> out = fenced_blocks(text);
  if (out.empty())
    if (size_t brace = text.find('{'); brace != std::string_view::npos)
      if (auto blob = balanced_object(text, brace); !blob.empty()) out.push_back(blob);
  return out;
}

}  // namespace

ParsedOutput JsonBlobParser::parse(std::string_view text) const {
  std::string why = "no JSON blob in the text";
  for (std::string_view candidate : candidates(text)) {
    JsonError error;
    Value blob = parse_json(candidate, &error);
    if (blob.is_discarded()) {
      why = "the JSON blob is not valid JSON (" + error.message + ")";
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
