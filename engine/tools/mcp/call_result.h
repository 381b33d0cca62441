#pragma once
// What a model reads of an MCP tool's answer (tools/call's result): its structuredContent as the tool's Value
// output, checked against the tool's outputSchema when it declares one; else its content blocks, text joined and
// anything else (images, audio, resources) named, not inlined. isError makes it a tool failure the model sees.
#include <string>

#include "engine/schema/schema.h"
#include "engine/tools/tool.h"

namespace engine::tools::mcp {

// `output_schema`, when given, is the tool's compiled outputSchema.
ToolResult call_result(Value result, const std::string& tool, const schema::Schema* output_schema);

// The content blocks as text: text blocks as they are, the others as "[image image/png]" and the like.
std::string content_text(const Value& content);

}  // namespace engine::tools::mcp
