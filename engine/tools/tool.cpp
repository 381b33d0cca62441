#include "engine/tools/tool.h"

#include "engine/core/json_text.h"

namespace engine::tools {

std::string observation_text(const Value& output) {
  if (output.is_string()) return output.get<std::string>();
  return to_json_text(output);
}

std::string ToolResult::text() const { return observation_text(output); }

}  // namespace engine::tools
