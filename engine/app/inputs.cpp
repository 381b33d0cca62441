#include "engine/app/inputs.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::app {

Value given_inputs(const workflow::Executor& executor, const GivenInputs& o) {
  Value given = Value::object();
  if (!o.file.empty()) {
    JsonError why{false, "not an object"};
    Value v = parse_json_file(o.file, kMaxFileBytes, Pipes::Allowed, &why);
    if (v.is_discarded() || !v.is_object())
      throw Error("input.bad_file", "--inputs " + o.file + ": expected a JSON object of inputs (" + why.message + ")");
    given = std::move(v);
  }
  std::vector<std::string> names;
  for (const auto& i : executor.inputs()) names.push_back(i.name);
  for (const auto& pair : o.pairs) {
    size_t eq = pair.find('=');
    std::string key = eq == std::string::npos ? "" : pair.substr(0, eq);
    if (!key.empty() && std::find(names.begin(), names.end(), key) != names.end()) {
      given[key] = pair.substr(eq + 1);
      continue;
    }
    // A bare value goes to the one input that has no default, or to the only input.
    std::vector<std::string> candidates;
    for (const auto& i : executor.inputs())
      if (!i.default_value) candidates.push_back(i.name);
    if (candidates.size() != 1 && names.size() == 1) candidates = names;
    if (candidates.size() != 1)
      throw Error("input.ambiguous", "--input '" + quote_excerpt(pair, 40) +
                                         "' has no key, and the workflow has " + std::to_string(names.size()) +
                                         " inputs; write --input NAME=VALUE (inputs: " + join(names, ", ") + ")");
    given[candidates[0]] = pair;
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
  throw Error("usage", "a chat needs to know which input holds the human's message, and this workflow has " +
                           (names.empty() ? std::string("no inputs") : "the inputs " + join(names, ", ")) +
                           ": declare an input named 'input', or set agent.memory.input_key");
}

std::string chat_message(const workflow::Executor& executor, const Value& inputs) {
  const Value& message = inputs[executor.chat_input()];
  return message.is_string() ? message.get<std::string>() : to_json_text(message);
}

}  // namespace engine::app
