#pragma once
// LangChain's chat-agent format (JSONAgentOutputParser): the step is a JSON object, in a ```json fence (the tag is
// optional) or bare in the text, naming the action and its input; the action "Final Answer" ends the run.
#include <string>

#include "engine/parse/output_parser.h"

namespace engine::parse {

struct JsonBlobOptions {
  std::string action_key = "action";
  std::string input_key = "action_input";
  std::string final_action = "Final Answer";
};

class JsonBlobParser : public OutputParser {
 public:
  explicit JsonBlobParser(JsonBlobOptions options = {}) : options_(std::move(options)) {}
  // The first blob with the action key is the step; its input is a string or an object (a structured final
  // answer is kept as JSON text). Malformed JSON, a blob without the key, or none at all is a ParseFailure.
  ParsedOutput parse(std::string_view text) const override;

 private:
  JsonBlobOptions options_;
};

}  // namespace engine::parse
