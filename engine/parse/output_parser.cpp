#include "engine/parse/output_parser.h"

namespace engine::parse {

ParsedOutput ParserChain::parse(std::string_view text) const {
  std::string failures;
  for (const auto& p : parsers_) {
    ParsedOutput out = p->parse(text);
    auto* failure = std::get_if<ParseFailure>(&out);
    if (!failure) return out;
    if (!failures.empty()) failures += "; then ";
    failures += failure->message;
  }
  return ParseFailure{failures};
}

}  // namespace engine::parse
