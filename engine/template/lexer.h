#pragma once
// Splits a template into text and tag tokens, applying whitespace control ({%- -%}, trim_blocks, lstrip_blocks).
#include <string>
#include <vector>

#include "engine/core/source.h"
#include "engine/template/options.h"

namespace engine::tmpl {

enum class TokenKind { Text, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Integer, Float, Operator, End };

struct Token {
  TokenKind kind;
  std::string text;  // the text, the name, the operator, the decoded string literal, or the number's spelling
  int line = 0;
  int col = 0;
};

std::vector<Token> tokenize(const SourceText& source, const TemplateOptions& options);

}  // namespace engine::tmpl
