#include "engine/app/inputs.h"

#include <algorithm>
#include <cctype>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"

namespace engine::app {
namespace {

// A key as inputs are named (a letter or _, then letters, digits, _), not the text of a question that holds '='.
bool looks_like_input_name(const std::string& key) {
  if (key.empty() || key.size() > 64 || std::isdigit(static_cast<unsigned char>(key[0]))) return false;
  return std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

}  // namespace

Value given_inputs(const workflow::Executor& executor, const GivenInputs& o) {
  Value given = Value::object();
  if (!o.file.empty()) {
    JsonError why{false, "not an object"};
    Value v = parse_json_file(o.file, limits::kFileBytes, Pipes::Allowed, &why);
    if (v.is_discarded() || !v.is_object())
      throw Error(ErrorKind::InputBadFile, "--inputs " + o.file + ": expected a JSON object of inputs (" + why.message + ")");
    given = std::move(v);
  }
  std::vector<std::string> names;
  for (const auto& i : executor.inputs()) names.push_back(i.name);
  std::vector<std::string> flagged;  // the inputs --input has given, each once
  auto give = [&](const std::string& name, std::string value, const std::string& pair) {
    if (std::find(flagged.begin(), flagged.end(), name) != flagged.end())
      throw Error(ErrorKind::InputDuplicate, "--input " + quote_excerpt(pair, 40) + " gives the input '" + name +
                                         "' a second time; give each input once");
    flagged.push_back(name);
    given[name] = std::move(value);
  };
  for (const auto& pair : o.pairs) {
    size_t eq = pair.find('=');
    std::string key = eq == std::string::npos ? "" : pair.substr(0, eq);
    if (!key.empty() && std::find(names.begin(), names.end(), key) != names.end()) {
      give(key, pair.substr(eq + 1), pair);
      continue;
    }
    // `questoin=...` meant an input, not text for the only one: silently taking it as the value would send the
    // model "questoin=..." as the question.
    if (looks_like_input_name(key)) {
      std::string hint = did_you_mean(key, names);
      if (hint.empty()) hint = " (its inputs: " + join(names, ", ") + ")";
      std::string as_text;
      if (names.size() == 1)
        as_text = "; to give the whole text to '" + names[0] + "', write --input '" + names[0] + "=" +
                  (pair.size() <= 60 ? pair : key + "=...") + "'";
      throw Error(ErrorKind::InputUnknown,
                  "--input " + quote_excerpt(pair, 40) + ": the workflow has no input '" + key + "'" + hint + as_text);
    }
    // A bare value goes to the one input that has no default, or to the only input.
    std::vector<std::string> candidates;
    for (const auto& i : executor.inputs())
      if (!i.default_value) candidates.push_back(i.name);
    if (candidates.size() != 1 && names.size() == 1) candidates = names;
    if (candidates.size() != 1)
      throw Error(ErrorKind::InputAmbiguous, "--input " + quote_excerpt(pair, 40) +
                                         " has no key, and the workflow has " + std::to_string(names.size()) +
                                         " inputs; write --input NAME=VALUE (inputs: " + join(names, ", ") + ")");
    give(candidates[0], pair, pair);
  }
  return given;
}

Value collect_inputs(const workflow::Executor& executor, const GivenInputs& given) {
  return executor.resolve_inputs(given_inputs(executor, given));
}

void require_chat_input(const workflow::Executor& executor) {
  if (!executor.chat_input().empty()) return;
  std::vector<std::string> names;
  for (const auto& i : executor.inputs()) names.push_back(i.name);
  throw Error(ErrorKind::Usage, "a chat needs to know which input holds the human's message, and this workflow has " +
                           (names.empty() ? std::string("no inputs") : "the inputs " + join(names, ", ")) +
                           ": declare an input named 'input', or set agent.memory.input_key");
}

std::string chat_message(const workflow::Executor& executor, const Value& inputs) {
  const Value& message = inputs[executor.chat_input()];
  return message.is_string() ? message.get<std::string>() : to_json_text(message);
}

}  // namespace engine::app
