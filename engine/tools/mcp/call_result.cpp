#include "engine/tools/mcp/call_result.h"

namespace engine::tools::mcp {
namespace {

std::string block_text(const Value& block) {
  std::string type = string_field(block, "type");
  if (type == "text") return string_field(block, "text");
  if (type == "image" || type == "audio") {
    std::string mime = string_field(block, "mimeType");
    return "[" + type + (mime.empty() ? "" : " " + mime) + "]";
  }
  if (type == "resource_link") {
    std::string name = string_field(block, "name"), uri = string_field(block, "uri");
    return "[resource " + (name.empty() ? uri : name + " " + uri) + "]";
  }
  if (type == "resource") return "[resource " + string_field(field(block, "resource"), "uri") + "]";
  return "[" + (type.empty() ? std::string("content") : type) + "]";
}

}  // namespace

std::string content_text(const Value& content) {
  std::string text;
  if (!content.is_array()) return text;
  for (const auto& block : content) {
    if (!text.empty()) text += '\n';
    text += block_text(block);
  }
  return text;
}

ToolResult call_result(Value result, const std::string& tool, const schema::Schema* output_schema) {
  const Value& is_error = field(result, "isError");
  if (is_error.is_boolean() && is_error.get<bool>()) {
    std::string text = content_text(field(result, "content"));
    return ToolResult::failure(ErrorKind::ToolError, text.empty() ? "tool '" + tool + "' failed and said nothing" : text);
  }
  if (result.contains("structuredContent")) {
    Value structured = std::move(result["structuredContent"]);
    if (output_schema) {
      auto violations = output_schema->validate(structured);
      if (!violations.empty())
        return ToolResult::failure(ErrorKind::McpBadResult, "tool '" + tool + "' answered with structured content that " +
                                                         "does not match its outputSchema: " + schema::describe(violations));
    }
    return ToolResult::success(std::move(structured));
  }
  if (output_schema)
    return ToolResult::failure(ErrorKind::McpBadResult,
                               "tool '" + tool + "' declares an outputSchema but answered without structured content");
  return ToolResult::success(content_text(field(result, "content")));
}

}  // namespace engine::tools::mcp
