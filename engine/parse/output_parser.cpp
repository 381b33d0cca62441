#include "engine/parse/output_parser.h"

namespace engine::parse {

ParsedOutput ParserChain::parse_with(std::string_view text, const ParseContext& context) const {
  ParseContext told{context.earlier_failures, context.log};
  for (const auto& p : parsers_) {
    ParsedOutput out = p->parse_with(text, told);
    auto* failure = std::get_if<ParseFailure>(&out);
    if (!failure || failure->verbatim) return out;
    told.earlier_failures.push_back(std::move(failure->message));
  }
  std::string failures;
  for (const std::string& message : told.earlier_failures) {
    if (!failures.empty()) failures += "; then ";
    failures += message;
  }
  return ParseFailure{failures};
}

}  // namespace engine::parse
