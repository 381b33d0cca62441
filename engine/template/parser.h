#pragma once
#include <vector>

#include "engine/core/source.h"
#include "engine/template/ast.h"
#include "engine/template/lexer.h"

namespace engine::tmpl {

// Builds the tree; throws a located Error ("template.syntax") for malformed templates.
Body parse(const SourceText& source, const std::vector<Token>& tokens);

}  // namespace engine::tmpl
