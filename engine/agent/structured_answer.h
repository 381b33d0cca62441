#pragma once
// An agent's declared output schema (LangChain's with_structured_output, cagent's structured_output): the run's
// answer is a JSON value that matches it, or the run goes on until it is one (bounded by the agent's limits).
#include <string>
#include <string_view>

#include "engine/core/value.h"
#include "engine/schema/schema.h"

namespace engine::agent {

struct OutputSchema {
  schema::Schema schema;
  std::string tool_name = "final_answer";  // the tool a tool-calling agent ends through...
  bool as_tool = true;  // ...unless the schema is the response format's, which the model answers in as text
};

// The answer in a model's text: JSON, bare or in a ```json fence, checked against the schema. Returns "" with
// `answer` set, else what is wrong, in words for the model.
std::string read_answer(const OutputSchema& output, std::string_view text, Value& answer);
// The same for an answer that is already a value (a final-answer tool's arguments).
std::string check_answer(const OutputSchema& output, const Value& answer);

}  // namespace engine::agent
