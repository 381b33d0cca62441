#include "engine/agent/structured_answer.h"

#include "engine/core/json_parse.h"
#include "engine/core/text.h"

namespace engine::agent {
std::string check_answer(const OutputSchema& output, const Value& answer) {
  auto violations = output.schema.validate(answer);
  if (violations.empty()) return "";
  return "the answer does not match the output schema: " + schema::describe(violations);
}

std::string read_answer(const OutputSchema& output, std::string_view text, Value& answer) {
  JsonError why;
  Value parsed = parse_json(unfenced(text), &why);
  if (parsed.is_discarded()) return "the answer must be JSON that matches the output schema (" + why.message + ")";
  if (std::string wrong = check_answer(output, parsed); !wrong.empty()) return wrong;
  answer = std::move(parsed);
  return "";
}

}  // namespace engine::agent
